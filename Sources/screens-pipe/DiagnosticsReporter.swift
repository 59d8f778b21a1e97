import Foundation
import ScreensBus
import Synchronization

/// Turns bus events into human lines on stderr: errors always, pages with `-v`, and the
/// progress line when it is on. Never writes to stdout.
final class DiagnosticsReporter: ListDelegate {
    private let verbose: Bool
    private let progress: ProgressLine?

    init(verbose: Bool, progress: ProgressLine?) {
        self.verbose = verbose
        self.progress = progress
    }

    func onRunStarted(_ started: RunStarted) async {
        if verbose { write("\(started.pipeline): loading from \(started.source)") }
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

    func onListError(_ error: ListError) async {
        var parts: [String] = []
        if let page = error.page { parts.append("page \(page)") }
        if let row = error.row { parts.append("row \(row)") }
        var text = parts.isEmpty ? error.message : "\(parts.joined(separator: ", ")): \(error.message)"
        if let request = error.request { text += " (\(request))" }
        write("screens-pipe: error: \(text)")
    }

    func onRunFinished(_ finished: RunFinished) async {
        progress?.clear()
        if verbose {
            write("\(finished.pipeline): \(finished.pages) pages, \(finished.rows) rows, \(finished.selected) selected, \(finished.errors) errors")
        }
    }

    func finish() {
        progress?.clear()
    }

    private func write(_ line: String) {
        progress?.clear()
        Terminal.write(line + "\n")
    }
}

/// The "in progress" cell of a list screenlet, as one rewritten line on stderr:
/// pages and rows loaded, of the row count, and the rate. Redrawn at most 10 times a second.
final class ProgressLine: Sendable {
    private struct State {
        var pipeline = ""
        var pages = 0
        var rows = 0
        var selected = 0
        var rowCount: Int?
        var started = ContinuousClock.now
        var lastDraw: ContinuousClock.Instant?
        var visible = false
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

    func selected() {
        state.withLock { $0.selected += 1 }
        draw(force: false)
    }

    func clear() {
        let wasVisible = state.withLock { state in
            defer { state.visible = false }
            return state.visible
        }
        if wasVisible { Terminal.write("\r\u{1B}[2K") }
    }

    private func draw(force: Bool) {
        let line: String? = state.withLock { state in
            let now = ContinuousClock.now
            if !force, let last = state.lastDraw, now - last < .milliseconds(100) { return nil }
            state.lastDraw = now
            state.visible = true
            let elapsed = Double((now - state.started).components.attoseconds) / 1e18 + Double((now - state.started).components.seconds)
            let rate = elapsed > 0 ? Int(Double(state.rows) / elapsed) : 0
            let of = state.rowCount.map { " of \($0)" } ?? ""
            return "\r\u{1B}[2K\(state.pipeline): \(state.pages) pages, \(state.rows)\(of) rows, \(state.selected) selected, \(rate) rows/s"
        }
        if let line { Terminal.write(line) }
    }
}
