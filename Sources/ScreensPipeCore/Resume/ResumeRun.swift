#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif
internal import Foundation
internal import Logging
import ScreensBus
import Synchronization

/// The resume side of a run that writes JSON lines of one list to a file: it leaves per-page
/// checkpoints while the run goes (so that a failed, interrupted or killed run can go on
/// with `run --resume`), or continues from one.
///
/// Exactly once: the loader records each delivered page's totals (``mark(page:tally:gate:)``);
/// the sink, at a page boundary it has fully written, syncs the file and only then commits
/// the checkpoint of that boundary (``checkpoint(output:selectedWritten:force:)``). The
/// resumed run cuts the kept file back to the checkpoint's length (a crash may have written
/// more), appends to it, and delivers from the checkpoint's page on; pages before it are
/// read from the cache snapshot of the interrupted load, not from the server.
///
/// Syncing costs a disk flush, so a checkpoint is committed at most every
/// ``checkpointInterval`` while the run goes, and always when it stops short.
final class ResumeRun: Sendable {
    /// How often a running load syncs its output and commits a checkpoint: a killed run
    /// resumes from at most this long before it died (plus the pages then in flight).
    static let checkpointInterval: Duration = .seconds(1)

    /// Where the checkpoint is stored.
    let key: StateKey
    /// Digest of what shapes the output: a changed pipeline refuses to resume.
    let specDigest: String
    /// The `-o` path.
    let output: String
    /// The cache snapshot this run's pages are stored under (the interrupted one's when resuming).
    let snapshot: String
    /// The checkpoint this run continues from, and the file it appends to; nil for a new run.
    let resumed: (checkpoint: ResumeCheckpoint, kept: String)?

    private let environment: PipelineEnvironment
    private let cacheSpec: CacheSpec?
    private let state: Mutex<State>

    /// The first page this run delivers; earlier ones are in the kept output.
    var startPage: Int { resumed?.checkpoint.nextPage ?? 0 }

    /// Totals and cursor after one delivered page.
    struct PageMark: Sendable {
        var pages: Int
        var rows: Int
        var selected: Int
        var delivered: CursorPosition?
    }

    private struct State: Sendable {
        /// Marks of delivered pages not yet covered by a checkpoint, by page index.
        var marks: [Int: PageMark] = [:]
        /// Set by a page with a failed row: no checkpoint may pass it, so a resumed run meets
        /// the failure again instead of skipping it.
        var marking = true
        var lastCommit: ContinuousClock.Instant?
        var committedNextPage = 0
        var store: (any ListStateStore)?
        var ownsStore = false
        /// A new run whose checkpoints cannot be stored goes on without them (warned once).
        var disabled = false
    }

    private init(
        key: StateKey, specDigest: String, output: String, snapshot: String, resumed: (checkpoint: ResumeCheckpoint, kept: String)?,
        environment: PipelineEnvironment, cacheSpec: CacheSpec?, store: (any ListStateStore)?, ownsStore: Bool
    ) {
        self.key = key
        self.specDigest = specDigest
        self.output = output
        self.snapshot = snapshot
        self.resumed = resumed
        self.environment = environment
        self.cacheSpec = cacheSpec
        var initial = State(store: store, ownsStore: ownsStore)
        initial.committedNextPage = resumed?.checkpoint.nextPage ?? 0
        state = Mutex(initial)
    }

    /// The resume side of a run of `spec`: nil when the run cannot leave a checkpoint (its
    /// output is not a file of JSON lines of one list), and a `configuration` error under
    /// `--resume` saying why there is nothing to resume.
    static func prepare(
        spec: PipelineSpec, environment: PipelineEnvironment, startCursor: CursorValue?
    ) async throws(ScreensPipeError) -> ResumeRun? {
        let refusal = resumability(of: spec, environment: environment)
        guard environment.resume else {
            guard refusal == nil, case .file(let path) = spec.sink.destination else { return nil }
            let key = ResumeCheckpoint.key(for: try spec.stateKey())
            let digest = try specDigest(of: spec, startCursor: startCursor)
            return ResumeRun(
                key: key, specDigest: digest, output: path, snapshot: UUID().uuidString, resumed: nil, environment: environment, cacheSpec: spec.cache, store: nil, ownsStore: false)
        }
        if let refusal { throw cannotResume(spec, refusal) }
        guard case .file(let path) = spec.sink.destination else { throw cannotResume(spec, "it has no output file") }
        let key = ResumeCheckpoint.key(for: try spec.stateKey())
        let store: any ListStateStore =
            if let configured = environment.stateStore { configured } else {
                try await CacheBackends.openStateStore(spec: spec.cache, environment: environment.storageVariables)
            }
        let ownsStore = environment.stateStore == nil
        do throws(ScreensPipeError) {
            guard let record = try await store.record(for: key) else {
                throw cannotResume(spec, "there is nothing to resume: no interrupted run of this pipeline with an output file left a checkpoint (a run that completed leaves none)")
            }
            let checkpoint = try ResumeCheckpoint(document: record.document, type: spec.incremental?.type, pipeline: spec.name)
            guard checkpoint.output == path else {
                throw cannotResume(spec, "the interrupted run wrote \(checkpoint.output), not \(path): resume with the same output")
            }
            let digest = try specDigest(of: spec, startCursor: startCursor)
            guard checkpoint.specDigest == digest else {
                throw cannotResume(spec, "the pipeline (or its options, its stored cursor) changed since the interrupted run, so the rest of the list would not match the kept part; run it again without --resume")
            }
            let partial = path + ".partial"
            let kept: String
            if OutputIdentity(path: partial, device: checkpoint.kept.device, inode: checkpoint.kept.inode).isInPlace {
                kept = partial
            } else if checkpoint.kept.isInPlace {
                kept = checkpoint.kept.path
            } else {
                throw cannotResume(spec, "the kept output \(partial) of the interrupted run is missing (or was replaced); run it again without --resume")
            }
            return ResumeRun(
                key: key, specDigest: checkpoint.specDigest, output: path, snapshot: checkpoint.snapshot, resumed: (checkpoint, kept),
                environment: environment, cacheSpec: spec.cache, store: store, ownsStore: ownsStore)
        } catch {
            if ownsStore { await store.close() }
            throw error
        }
    }

    /// Why runs of `spec` leave no checkpoint, or nil when they do.
    private static func resumability(of spec: PipelineSpec, environment: PipelineEnvironment) -> String? {
        if environment.fullRefresh { return "--full-refresh starts over, which is the opposite of resuming" }
        guard case .file(let path) = spec.sink.destination, path != "-" else {
            return "its output is not a file (-o FILE): rows written to a stream cannot be taken back or continued"
        }
        guard spec.sink.format == .items else {
            return "only JSON lines of rows (format items) are resumed; \(spec.sink.format.rawValue) output has a header or per-run lines"
        }
        if spec.source.fansOut { return "a for-each or recursive source loads many lists; only a single list is resumed" }
        // Checkpoints live with the list's state, beside the cache: a pipeline that keeps
        // neither gets no database created behind its back.
        if spec.cache == nil, spec.incremental == nil, environment.stateStore == nil {
            return "it has no cache: section, where the checkpoints of its runs are kept; add one (or run with --policy remote-first) to make its runs resumable"
        }
        var status = stat()
        if lstat(path, &status) == 0, status.st_mode & S_IFMT != S_IFREG {
            return "its output \(path) is not a regular file"
        }
        return nil
    }

    private static func cannotResume(_ spec: PipelineSpec, _ reason: String) -> ScreensPipeError {
        .configuration("cannot resume pipeline \(spec.name): \(reason)")
    }

    /// What shapes the bytes of the output: the pipeline as `plan` shows it (sink, filter,
    /// limit, convert...), the fields each row keeps (`sink.fields`, `--fields`: rows of
    /// another shape must not be appended), its list's cache key (which hashes every
    /// secret), and the cursor an incremental run starts from.
    static func specDigest(of spec: PipelineSpec, startCursor: CursorValue?) throws(ScreensPipeError) -> String {
        let fields = spec.sink.fields.map { "fields " + JSONValue.array($0.map { .string($0.description) }).jsonString } ?? "all fields"
        let text = [spec.redactedDescription(), fields, try CacheKey(spec: spec).text, startCursor?.text ?? "-"].joined(separator: "\n")
        return CacheKey.digest(text)
    }

    // MARK: - While the run goes

    /// Records the totals after delivered page `index` (the loader calls this before it
    /// publishes the page). A page with a failed row stops the marks: no checkpoint passes it.
    func mark(page index: Int, summary: RunSummary, failed: Bool, gate: CursorGate?) {
        state.withLock { state in
            if failed { state.marking = false }
            guard state.marking else { return }
            state.marks[index] = PageMark(pages: summary.pages, rows: summary.rows, selected: summary.selected, delivered: gate?.deliveredPosition)
        }
    }

    /// Whether the sink should hand its bytes over for a checkpoint now.
    var isDue: Bool {
        state.withLock { state in
            guard !state.disabled, !state.marks.isEmpty else { return false }
            guard let last = state.lastCommit else { return true }
            return last.duration(to: .now) >= Self.checkpointInterval
        }
    }

    /// Called by the sink when everything it got is in `output` and `selectedWritten` rows
    /// were written: finds the last delivered page those rows end with, syncs the file and
    /// commits its checkpoint (unless one was committed within ``checkpointInterval`` and
    /// `force` is false). A checkpoint that cannot be stored is warned about once; the run
    /// goes on.
    func checkpoint(output: OutputFile, selectedWritten: Int, force: Bool) async throws(SinkFailure) {
        guard force || isDue else { return }
        let found = state.withLock { state -> (page: Int, mark: PageMark)? in
            guard !state.disabled else { return nil }
            let complete = state.marks.filter { $0.value.selected == selectedWritten }.max { $0.key < $1.key }
            guard let complete, complete.key + 1 > state.committedNextPage else { return nil }
            return (complete.key, complete.value)
        }
        guard let found, let kept = output.keptFile else { return }
        let (page, mark) = found
        try output.sync()
        let checkpoint = ResumeCheckpoint(
            specDigest: specDigest, output: self.output, kept: kept.identity, nextPage: page + 1, bytes: output.length,
            pages: mark.pages, rows: mark.rows, selected: mark.selected, snapshot: snapshot, delivered: mark.delivered)
        do throws(ScreensPipeError) {
            let store = try await openedStore()
            try await store.commit(ListStateRecord(document: checkpoint.document(), committedAt: Date()), for: key)
            state.withLock { state in
                state.lastCommit = .now
                state.committedNextPage = page + 1
                state.marks = state.marks.filter { $0.key > page }
            }
        } catch {
            state.withLock { $0.disabled = true }
            environment.logger.warning("cannot store a resume checkpoint (\(error.message)); the run goes on, but cannot be resumed")
        }
    }

    /// After a run whose output is in place: forgets the checkpoint, which no longer
    /// describes a kept file. Then lets go of the store.
    ///
    /// A completed run that left no checkpoint of its own (a list of one page) still removes
    /// one an earlier, failed run may have left, which `--resume` would otherwise continue.
    func finish(completed: Bool) async {
        if completed {
            do throws(ScreensPipeError) {
                try await openedStore().reset(key)
            } catch {
                environment.logger.warning("cannot remove the resume checkpoint of the completed run (\(error.message))")
            }
        }
        let (store, ownsStore) = state.withLock { ($0.store, $0.ownsStore) }
        if ownsStore { await store?.close() }
    }

    private func openedStore() async throws(ScreensPipeError) -> any ListStateStore {
        if let store = state.withLock({ $0.store }) { return store }
        let store: any ListStateStore
        let owns: Bool
        if let configured = environment.stateStore {
            (store, owns) = (configured, false)
        } else {
            (store, owns) = (try await CacheBackends.openStateStore(spec: cacheSpec, environment: environment.storageVariables), true)
        }
        state.withLock { state in
            state.store = store
            state.ownsStore = owns
        }
        return store
    }
}
