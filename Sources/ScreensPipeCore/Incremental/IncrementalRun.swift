internal import Foundation

/// One run of an incremental pipeline: its state key and store, the gate rows pass
/// through, and the spec its source is built from (with the cursor pushed down).
///
/// Commit order (docs/architecture.md, "Incremental loads"): the sink syncs its file, the
/// new position is committed as *pending* with the file's inode, the file is renamed over
/// `-o`, then the position is committed for good. A crash before the rename leaves the
/// previous cursor (the next run delivers the rows again, into an output that was never
/// published); a crash after it leaves a pending position whose file is in place, which the
/// next run adopts. Either way no row is skipped and none is published twice.
struct IncrementalRun: Sendable {
    let key: StateKey
    let store: any ListStateStore
    /// Whether this run opened `store` (and so closes it), rather than the embedder.
    let ownsStore: Bool
    let gate: CursorGate
    /// The position committed before this run (nil: none, or `--full-refresh`).
    let committed: CursorPosition?
    /// The spec the source is built from: the pipeline's, with the cursor pushed to the server.
    let sourceSpec: PipelineSpec
    let pushed: Bool
    let type: CursorType

    /// Reads the committed state of `spec`'s list (ignored and removed under
    /// `--full-refresh`), nil when `spec` is not incremental. A pending position left by a
    /// crash is settled here, once: kept when its output is in place, else dropped.
    static func prepare(spec: PipelineSpec, environment: PipelineEnvironment) async throws(ScreensPipeError) -> IncrementalRun? {
        guard let incremental = spec.incremental else { return nil }
        let key = try stateKey(of: spec)
        let store: any ListStateStore =
            if let configured = environment.stateStore { configured } else {
                try await CacheBackends.openStateStore(spec: spec.cache, environment: environment.storageVariables)
            }
        let ownsStore = environment.stateStore == nil
        var committed: CursorPosition?
        if environment.fullRefresh {
            try await store.reset(key)
        } else if let record = try await store.record(for: key) {
            var state = try IncrementalState(document: record.document, type: incremental.type, key: key)
            if let pending = state.pending {
                state = IncrementalState(position: pending.output.isInPlace ? pending.position : state.position)
                try await store.commit(ListStateRecord(document: state.document(type: incremental.type), committedAt: Date()), for: key)
            }
            committed = state.position
        }
        let endsEarly = if case .jsonwsNewestFirst = IncrementalPushDown.mode(for: spec) { true } else { false }
        let gate = CursorGate(spec: incremental, state: committed, endsEarly: endsEarly)
        let (sourceSpec, pushed) = IncrementalPushDown.apply(spec, lowerBound: gate.lowerBound)
        return IncrementalRun(
            key: key, store: store, ownsStore: ownsStore, gate: gate, committed: committed, sourceSpec: sourceSpec, pushed: pushed, type: incremental.type)
    }

    /// The state key of `spec`'s list: the pipeline's name and the cache key of its source
    /// as written (before any cursor is pushed into it), which hashes every secret.
    static func stateKey(of spec: PipelineSpec) throws(ScreensPipeError) -> StateKey {
        StateKey(pipeline: spec.name, list: try CacheKey(spec: spec).text)
    }

    /// Commits the gate's next position as pending on `output` (synced, not yet renamed).
    func commitPending(output: OutputIdentity) async throws(ScreensPipeError) {
        guard let next = gate.nextState else { return }
        try await write(IncrementalState(position: committed, pending: (next, output)))
    }

    /// Commits the gate's next position; call only once the output is in place.
    func commit() async throws(ScreensPipeError) {
        guard let next = gate.nextState else { return }
        do throws(ScreensPipeError) {
            try await write(IncrementalState(position: next))
        } catch {
            var failed = error
            failed.message += "; the output is complete, and the cursor is settled by the next run (rows written to standard output are delivered again)"
            throw failed
        }
    }

    /// Closes the store if this run opened it.
    func close() async {
        if ownsStore { await store.close() }
    }

    private func write(_ state: IncrementalState) async throws(ScreensPipeError) {
        try await store.commit(ListStateRecord(document: state.document(type: type), committedAt: Date()), for: key)
    }
}

extension PipelineSpec {
    /// The key this pipeline's list state (incremental cursor) is stored under.
    public func stateKey() throws(ScreensPipeError) -> StateKey {
        try IncrementalRun.stateKey(of: self)
    }
}
