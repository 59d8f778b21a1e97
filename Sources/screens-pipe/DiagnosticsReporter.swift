import ScreensBus
import ScreensPipe
import Synchronization

/// Turns bus events into human lines on stderr: errors always, pages with `-v`, and the
/// progress line when it is on. Never writes to stdout.
///
/// Errors of single rows (a conversion or a filter failing on one row) are shown for the
/// first ``shownRowErrors`` rows only, then counted: a list of a million bad rows prints a
/// few lines and one count by kind, not a million lines. Page and run errors always show.
final class DiagnosticsReporter: ListDelegate {
    private let verbose: Bool
    private let progress: ProgressLine?
    /// Row errors not shown, by kind.
    private let hiddenRowErrors = Mutex<(shown: Int, hidden: [String: Int])>((0, [:]))

    /// How many row errors are written in full.
    static let shownRowErrors = 5

    init(verbose: Bool, progress: ProgressLine?) {
        self.verbose = verbose
        self.progress = progress
    }

    func onRunStarted(_ started: RunStarted) async {
        if verbose {
            let resuming = started.resumedFromPage.map { ", resuming at page \($0)" } ?? ""
            write("\(started.pipeline): loading from \(started.source)\(resuming)")
        }
        progress?.start(pipeline: started.pipeline)
    }

    func onListResponse(_ response: ListResponse) async {
        if verbose {
            let count = response.rowCount.map { " of \($0)" } ?? ""
            write("\(response.pipeline): page \(response.page) rows \(response.startRow)..<\(response.endRow): \(response.rows) rows\(count) (\(response.origin.rawValue))")
        }
        progress?.page(response)
    }

    func onSelected(_ row: SelectedRow) async {
        progress?.selected()
    }

    /// Counts a page's rows without reading them; only its errors (when it has any) are
    /// looked at one by one.
    func onPage(_ page: PageEvents) async {
        await onListResponse(page.response)
        if page.selectedCount > 0 { progress?.selected(page.selectedCount) }
        for error in page.errors { await onListError(error) }
    }

    func onListError(_ error: ListError) async {
        if error.row != nil {
            let show = hiddenRowErrors.withLock { state -> Bool in
                if state.shown < Self.shownRowErrors {
                    state.shown += 1
                    return true
                }
                state.hidden[error.kind, default: 0] += 1
                return false
            }
            guard show else { return }
        }
        write("screens-pipe: error: \(error)")
    }

    func onRunFinished(_ finished: RunFinished) async {
        progress?.finish()
        let hidden = hiddenRowErrors.withLock { $0.hidden }
        if !hidden.isEmpty {
            let total = hidden.values.reduce(0, +)
            let kinds = hidden.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
            write("screens-pipe: error: \(total) more row \(total == 1 ? "error" : "errors") not shown (\(kinds)); --events lists every one")
        }
        if let skipped = finished.skipped {
            write("screens-pipe: skipped \(skipped) \(skipped == 1 ? "row" : "rows") that did not convert (convert.on-invalid: skip)")
        }
        if verbose {
            let counts = [Count.of(finished.pages, "page"), Count.of(finished.rows, "row"), "\(finished.selected) selected", Count.of(finished.errors, "error")]
            write("\(finished.pipeline): \(counts.joined(separator: ", "))")
        }
    }

    func finish() {
        progress?.finish()
    }

    private func write(_ line: String) {
        progress?.clear()
        Terminal.write(Terminal.printable(line) + "\n")
        progress?.redraw()
    }
}

/// The "in progress" cell of a list screenlet, as one rewritten line on stderr:
/// pages and rows loaded, of the row count, the rate, and retries so far.
///
/// Redrawn for every page and retry, and at most 10 times a second for selected rows.
/// It only ever writes to stderr, so stdout stays pure data whatever `--progress` says.
final class ProgressLine: Sendable {
    private struct State {
        var pipeline = ""
        var pages = 0
        var rows = 0
        var selected = 0
        var retries = 0
        var rowCount: Int?
        var started = ContinuousClock.now
        var lastDraw: ContinuousClock.Instant?
        var visible = false
        var finished = false
    }

    private let state = Mutex(State())

    func start(pipeline: String) {
        state.withLock { state in
            state.pipeline = pipeline
            state.started = .now
        }
    }

    func page(_ response: ListResponse) {
        state.withLock { state in
            state.pages += 1
            state.rows += response.rows
            if let count = response.rowCount { state.rowCount = count }
        }
        draw(force: true)
    }

    func selected(_ count: Int = 1) {
        state.withLock { $0.selected += count }
        draw(force: false)
    }

    /// A page request is about to be retried (``PipelineEnvironment/onRetry``).
    func retry(_ notice: RetryNotice) {
        state.withLock { $0.retries += 1 }
        draw(force: true)
    }

    /// Erases the line (before another message, and at the end).
    func clear() {
        let wasVisible = state.withLock { state in
            defer { state.visible = false }
            return state.visible
        }
        if wasVisible { Terminal.write("\r\u{1B}[2K") }
    }

    /// Draws the line again after a message erased it, unless the run is over.
    func redraw() {
        if state.withLock({ !$0.finished && $0.lastDraw != nil }) { draw(force: true) }
    }

    /// The run is over: erase the line for good.
    func finish() {
        state.withLock { $0.finished = true }
        clear()
    }

    private func draw(force: Bool) {
        let line: String? = state.withLock { state in
            if state.finished { return nil }
            let now = ContinuousClock.now
            if !force, let last = state.lastDraw, now - last < .milliseconds(100) { return nil }
            state.lastDraw = now
            state.visible = true
            return "\r\u{1B}[2K" + Self.text(state, elapsed: now - state.started)
        }
        if let line { Terminal.write(line) }
    }

    /// `bookmarks: 3 pages, 100 of 173 rows, 90 selected, 2400 rows/s, 1 retry`
    private static func text(_ state: State, elapsed: Duration) -> String {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = seconds > 0 ? Int(Double(state.rows) / seconds) : 0
        let of = state.rowCount.map { " of \($0)" } ?? ""
        var text = "\(state.pipeline): \(state.pages) page\(state.pages == 1 ? "" : "s"), \(state.rows)\(of) rows, "
        text += "\(state.selected) selected, \(rate) rows/s"
        if state.retries > 0 { text += ", \(state.retries) retr\(state.retries == 1 ? "y" : "ies")" }
        return text
    }
}

/// "1 page", "2 pages": counts in messages agree with their nouns.
enum Count {
    static func of(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}
