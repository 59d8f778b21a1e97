import ScreensBus
import Synchronization
import Tracing

/// Loads a source with `for-each` or `recursive` list by list.
///
/// Order (documented in FanOut.md): parent lists are loaded first, in full; then the child
/// lists are delivered in parent order, each one's pages in list order, so the output is the
/// children's lists concatenated in parent order. Up to `concurrency` child lists load at
/// once; every request of every list holds a permit of one ``InFlightBudget`` of the same
/// size, so prefetch and fan-out share it. A child that is ahead of delivery waits in its
/// ``PageRelay``. A tree is walked list by list, depth first. Each list has its own cache
/// key, since the parent values are part of its settings. Any list's failure stops the run
/// with an error naming the parent rows.
struct FanOutRun: Sendable {
    let spec: PipelineSpec
    let baseURL: String?
    let environment: PipelineEnvironment
    let store: (any CacheBackend)?
    /// The run's one client (or its ScreensPipeClient's), which every list sends with.
    let clientLease: HTTPClientLease
    var client: HTTPClient { clientLease.client }
    let budget: InFlightBudget
    let metrics: RunMetrics
    /// Child lists loaded at once.
    let concurrency: Int
    /// For each `as` name, the fields placeholders read: what events and errors show.
    let shownFields: [String: [String]]
    /// The parents of the list whose failure stopped the run, for the `error` event.
    let failure = FailedList()
    /// Each list's span, by its parents: a child list's span goes under its parent row's list's.
    let listSpans = ListSpans()

    /// The span context of each list loaded so far, by its lineage (unique per list); empty
    /// unless a tracer records spans.
    final class ListSpans: Sendable {
        private let contexts = Mutex<[Lineage: ServiceContext]>([:])

        func record(_ context: ServiceContext, of lineage: Lineage) {
            contexts.withLock { $0[lineage] = context }
        }

        func context(of lineage: Lineage) -> ServiceContext? {
            contexts.withLock { $0[lineage] }
        }
    }

    /// The parents of the first list that failed; later failures are the stop it caused.
    final class FailedList: Sendable {
        private let lineage = Mutex<Lineage?>(nil)

        /// Names `error` with `lineage` and keeps the lineage when it is the first failure.
        func record(_ error: ScreensPipeError, of lineage: Lineage) -> ScreensPipeError {
            if error.code != .cancelled {
                self.lineage.withLock { kept in if kept == nil { kept = lineage } }
            }
            return lineage.naming(error)
        }

        /// The `parent` member of the run's `error` event; nil for a failure outside a child list.
        var parent: JSONValue? {
            lineage.withLock { kept in kept.flatMap { $0.isEmpty ? nil : $0.json } }
        }
    }

    /// The most rows a tree may hold; more is an error (a hostile server can invent folders).
    static let maximumTreeRows = 100_000

    /// How a fan-out that did not fail ended.
    enum Outcome: Sendable {
        /// The consumer asked to stop (a `limit`).
        case stopped
        /// Every list ended; the warnings of those that ended on a short page.
        case completed(warnings: [String])
    }

    static func make(
        spec: PipelineSpec, baseURL: String?, environment: PipelineEnvironment, metrics: RunMetrics
    ) async throws(ScreensPipeError) -> FanOutRun {
        // A store of the run's own even under a ScreensPipeClient: on PostgreSQL, closing
        // it is what gives up the refresh locks of child lists a failed run left.
        let store: (any CacheBackend)? =
            if let cache = spec.cache { try await CacheBackends.open(spec: cache, environment: environment.storageVariables) } else { nil }
        let permits = spec.source.forEach?.concurrency ?? spec.source.pagination.prefetch
        return FanOutRun(
            spec: spec, baseURL: baseURL, environment: environment, store: store, clientLease: environment.httpClient(),
            budget: InFlightBudget(permits: permits), metrics: metrics, concurrency: permits,
            shownFields: Self.shownFields(of: spec.source))
    }

    /// The fields each parent's placeholders read, in the order first written.
    static func shownFields(of source: SourceSpec) -> [String: [String]] {
        var fields: [String: [String]] = [:]
        var current: SourceSpec? = source
        while let list = current {
            if let template = list.rowTemplate {
                RowPlaceholders.scalars(in: .mapping(template)) { scalar in
                    for reference in (try? RowPlaceholders.references(in: scalar.text)) ?? [] {
                        let field = reference.field.description
                        if !(fields[reference.name] ?? []).contains(field) { fields[reference.name, default: []].append(field) }
                    }
                }
            }
            current = list.forEach?.list
        }
        return fields
    }

    /// One line for the `started` event: what is listed for each parent.
    var summary: String { Self.describe(spec.source) }

    static func describe(_ source: SourceSpec) -> String {
        var text = source.type.typeName
        if let recursion = source.recursive { text += " (a tree: \(recursion.param) = each row's \(recursion.key))" }
        if let forEach = source.forEach { text += " for each \(forEach.name) of [\(describe(forEach.list))]" }
        return text
    }

    /// Closes the run's one client and one cache store. Child fetchers are never shut down
    /// one by one (that would close what the others share); on PostgreSQL, closing the store
    /// ends its sessions, which releases every child list's refresh lock at once.
    func shutdown() async {
        await clientLease.release()
        await store?.close()
    }

    // MARK: - Loading

    /// Loads every child list, handing each page with its parents to `deliver` in order.
    func load(
        provisional: @Sendable (FetchedPage, Lineage) async -> Void,
        deliver: (FetchedPage, Lineage) async throws(ScreensPipeError) -> PageLoader.Decision
    ) async throws(ScreensPipeError) -> Outcome {
        let jobs = try await jobs(for: spec.source, lineage: Lineage())
        var warnings: [String] = []
        let stopped = try await run(
            jobs, provisional: provisional, deliver: deliver,
            ended: { outcome, lineage in
                if case .ended(_, let warning?) = outcome { warnings.append(lineage.isEmpty ? warning : "\(lineage.description): \(warning)") }
            })
        return stopped ? .stopped : .completed(warnings: warnings)
    }

    /// One unit of ordered output: a list (or a tree of lists) for one parent row.
    struct Job: Sendable {
        /// The source with its placeholders, and `recursive` when the job is a tree.
        var source: SourceSpec
        var lineage: Lineage
        /// The span of the list its parent row came from; nil: the run's.
        var parentSpan: ServiceContext? = nil
    }

    /// The jobs of `source`: one per row of its parent list, or itself when it has none.
    private func jobs(for source: SourceSpec, lineage: Lineage) async throws(ScreensPipeError) -> [Job] {
        guard let forEach = source.forEach else { return [Job(source: source, lineage: lineage)] }
        let parents = try await collect(forEach.list, lineage: lineage, limit: forEach.maxParents, name: forEach.name)
        return parents.enumerated().map { index, parent in
            let frame = Lineage.Frame(name: forEach.name, row: index, value: parent.row, shownFields: shownFields[forEach.name] ?? [])
            return Job(source: source, lineage: parent.lineage.adding(frame), parentSpan: listSpans.context(of: parent.lineage))
        }
    }

    /// Every row of a parent list (itself maybe a fan-out or a tree), with its own parents.
    private func collect(
        _ source: SourceSpec, lineage: Lineage, limit: Int, name: String
    ) async throws(ScreensPipeError) -> [(row: JSONValue, lineage: Lineage)] {
        let jobs = try await jobs(for: source, lineage: lineage)
        var rows: [(row: JSONValue, lineage: Lineage)] = []
        _ = try await run(
            jobs, provisional: { _, _ in },
            deliver: { (page, lineage) throws(ScreensPipeError) -> PageLoader.Decision in
                guard rows.count + page.rowsInPage <= limit else {
                    throw failure.record(
                        ScreensPipeError.pagination(
                            "the parent list '\(name)' has more than \(limit) rows (for-each.max-parents); raise it or narrow the list", page: page.request.index),
                        of: lineage)
                }
                rows += page.rows.map { ($0, lineage) }
                return .next
            },
            ended: { _, _ in })
        return rows
    }

    /// Runs `jobs`, up to ``concurrency`` at once, delivering their pages in job order.
    /// Returns true when `deliver` asked to stop.
    private func run(
        _ jobs: [Job],
        provisional: @Sendable (FetchedPage, Lineage) async -> Void,
        deliver: (FetchedPage, Lineage) async throws(ScreensPipeError) -> PageLoader.Decision,
        ended: (PageLoader.Outcome, Lineage) -> Void
    ) async throws(ScreensPipeError) -> Bool {
        let relays = jobs.map { _ in PageRelay() }
        let result: Result<Bool, ScreensPipeError> = await withTaskGroup(of: Void.self) { group in
            var started = 0
            func startNext() {
                guard started < jobs.count else { return }
                let (job, relay) = (jobs[started], relays[started])
                group.addTask { await self.perform(job, into: relay) }
                started += 1
            }
            func stopAll() {
                for relay in relays { relay.close() }
                group.cancelAll()
            }
            while started < min(concurrency, jobs.count) { startNext() }
            for relay in relays {
                deliveries: while true {
                    switch await relay.receive() {
                    case .provisional(let page, let lineage):
                        await provisional(page, lineage)
                    case .page(let page, let lineage):
                        do throws(ScreensPipeError) {
                            if try await deliver(page, lineage) == .stop {
                                stopAll()
                                return .success(true)
                            }
                        } catch {
                            stopAll()
                            return .failure(error)
                        }
                    case .listEnded(let outcome, let lineage):
                        ended(outcome, lineage)
                    case .finished:
                        break deliveries
                    case .failed(let error):
                        stopAll()
                        return .failure(error)
                    }
                }
                relay.close()
                startNext()
            }
            return .success(false)
        }
        return try result.get()
    }

    /// Loads one job into its relay: a list, or a tree of lists.
    private func perform(_ job: Job, into relay: PageRelay) async {
        do throws(ScreensPipeError) {
            if let recursion = job.source.recursive {
                let walk = TreeWalk(recursion: recursion)
                try await walkTree(job, walk: walk, parentKey: nil, path: [], parentSpan: job.parentSpan, relay: relay)
            } else {
                let source = try resolve(job.source, lineage: job.lineage, parameter: nil)
                try await loadList(source, lineage: job.lineage, parentSpan: job.parentSpan, relay: relay, walk: nil, depth: 0)
            }
            _ = await relay.send(.finished)
        } catch {
            _ = await relay.send(.failed(error))
        }
    }

    /// Lists one level of a tree, then each row's children, depth first.
    private func walkTree(
        _ job: Job, walk: TreeWalk, parentKey: JSONValue?, path: [JSONValue], parentSpan: ServiceContext?, relay: PageRelay
    ) async throws(ScreensPipeError) {
        var lineage = job.lineage
        lineage.tree = path
        let parameter = parentKey.map { (name: walk.recursion.param, value: $0) }
        let source = try resolve(job.source, lineage: lineage, parameter: parameter)
        let keys = try await loadList(source, lineage: lineage, parentSpan: parentSpan, relay: relay, walk: walk, depth: path.count)
        // A level's lists go under the span of the list that holds their parent rows.
        let levelSpan = listSpans.context(of: lineage)
        for key in keys {
            if Task.isCancelled { throw ScreensPipeError.cancelled("the run was cancelled") }
            try await walkTree(job, walk: walk, parentKey: key, path: path + [key], parentSpan: levelSpan, relay: relay)
        }
    }

    /// Loads one list into `relay`; in a tree, returns its rows' keys after checking each
    /// against the rows listed before (a cycle), the depth and the size of the tree.
    @discardableResult
    private func loadList(
        _ source: SourceSpec, lineage: Lineage, parentSpan: ServiceContext?, relay: PageRelay, walk: TreeWalk?, depth: Int
    ) async throws(ScreensPipeError) -> [JSONValue] {
        var child = spec
        child.source = source
        let keys = Mutex<[JSONValue]>([])
        do throws(ScreensPipeError) {
            let base = try await SourceFactory.makeFetcher(
                spec: child, baseURL: baseURL(for: source), environment: environment, store: store, client: client)
            let instrumented = InstrumentedFetcher(base: base, metrics: metrics, cached: spec.cache != nil)
            let loader = PageLoader(fetcher: BudgetedFetcher(base: instrumented, budget: budget), pagination: SourceFactory.effectivePagination(for: source))
            let span = PipelineSpans.startList(source: base.summary, lineage: lineage.description, parent: parentSpan)
            // Kept only for a tracer that records: lineages hold their parent rows.
            if span.isRecording { listSpans.record(span.context, of: lineage) }
            let outcome = try await PipelineSpans.within(span) { () throws(ScreensPipeError) in try await loader.load(
                provisional: { page in _ = await relay.send(.provisional(page, lineage)) },
                deliver: { (page) throws(ScreensPipeError) -> PageLoader.Decision in
                    if let walk {
                        let pageKeys = try walk.admit(page, depth: depth)
                        keys.withLock { $0 += pageKeys }
                    }
                    return await relay.send(.page(page, lineage)) ? .next : .stop
                }) }
            _ = await relay.send(.listEnded(outcome, lineage))
        } catch {
            throw failure.record(error, of: lineage)
        }
        return keys.withLock { $0 }
    }

    /// The base URL of a list: the run's (the sandbox's once it runs) unless it names its own.
    private func baseURL(for source: SourceSpec) -> String? {
        if case .url(let url) = source.server, url != baseURL, spec.source.server != source.server { return url }
        return baseURL
    }

    /// The source of one list: the template with the parent values (and, in a tree, the
    /// parent key as `param`) in place, decoded and checked as the file's own source is.
    private func resolve(_ source: SourceSpec, lineage: Lineage, parameter: (name: String, value: JSONValue)?) throws(ScreensPipeError) -> SourceSpec {
        guard let template = source.rowTemplate else {
            if source.recursive != nil {
                throw ScreensPipeError.configuration("'recursive' needs a source read from a pipeline file")
            }
            return source
        }
        do throws(ScreensPipeError) {
            // Placeholders first, the tree key after: a key's text is never read for placeholders.
            var resolved = try RowPlaceholders.resolve(template, lineage: lineage)
            if let parameter { resolved = try TreeParameter.set(parameter.name, to: parameter.value, in: resolved, type: source.type) }
            let context = DecodingContext()
            let decoder = SpecDecoder(context: context, defaultName: spec.name, file: spec.file, placeholdersResolved: true)
            let decoded = Section(.mapping(resolved), name: "source", context: context).flatMap { decoder.decodeSource($0) }
            if let first = context.errors.first {
                throw ScreensPipeError.malformedResponse("the parent values make an invalid source: \(first.message)")
            }
            guard var decoded else { throw ScreensPipeError.malformedResponse("the parent values make an invalid source") }
            decoded.forEach = nil
            decoded.recursive = nil
            decoded.rowTemplate = nil
            return decoded
        } catch {
            throw failure.record(error, of: lineage)
        }
    }
}

/// What a tree walk has seen: every key listed so far (a key seen twice is a cycle), and
/// how many rows the tree holds.
final class TreeWalk: Sendable {
    let recursion: RecursionSpec
    private let keyPath: FieldPath?
    private let seen = Mutex<Set<JSONValue>>([])

    init(recursion: RecursionSpec) {
        self.recursion = recursion
        keyPath = try? FieldPath(recursion.key)
    }

    /// The keys of `page`'s rows, after checking them; throws before the page is delivered,
    /// so a row is never delivered twice.
    func admit(_ page: FetchedPage, depth: Int) throws(ScreensPipeError) -> [JSONValue] {
        guard page.rowsInPage > 0 else { return [] }
        if depth > recursion.maxDepth {
            throw ScreensPipeError.pagination(
                "the tree is deeper than recursive.max-depth (\(recursion.maxDepth)): this list at depth \(depth) has rows", page: page.request.index)
        }
        var keys: [JSONValue] = []
        for (offset, row) in page.rows.enumerated() {
            let rowNumber = page.request.startRow + offset
            guard let keyPath, let key = keyPath.resolve(in: row) else {
                throw ScreensPipeError.malformedResponse("row \(rowNumber) has no '\(recursion.key)' (recursive.key)", page: page.request.index)
            }
            switch key {
            case .null, .array, .object:
                throw ScreensPipeError.malformedResponse("row \(rowNumber): '\(recursion.key)' is not a scalar", page: page.request.index)
            default: break
            }
            keys.append(key)
        }
        try seen.withLock { (seen) throws(ScreensPipeError) in
            for (offset, key) in keys.enumerated() where !seen.insert(key).inserted {
                throw ScreensPipeError.pagination(
                    "row \(page.request.startRow + offset) (\(recursion.key) \(key.jsonString)) was listed before: the tree has a cycle (a row inside itself or inside its own children)",
                    page: page.request.index)
            }
            if seen.count > FanOutRun.maximumTreeRows {
                throw ScreensPipeError.pagination("the tree holds more than \(FanOutRun.maximumTreeRows) rows", page: page.request.index)
            }
        }
        return keys
    }
}

/// Puts a tree's parent key into a source template as the parameter that asks for children.
enum TreeParameter {
    static func set(_ name: String, to value: JSONValue, in template: YAMLMapping, type: SourceTypeSpec) throws(ScreensPipeError) -> YAMLMapping {
        let text: String
        var style = YAMLScalar.Style.plain
        switch value {
        case .string(let string):
            text = string
            style = .doubleQuoted
        case .int(let number): text = String(number)
        case .number(let literal): text = literal
        case .bool(let flag): text = flag ? "true" : "false"
        default: text = value.jsonString
        }
        guard text.utf8.count <= RowPlaceholders.maximumValueBytes else {
            throw ScreensPipeError.malformedResponse("a recursive key is \(text.utf8.count) bytes long, more than \(RowPlaceholders.maximumValueBytes)")
        }
        let scalar = YAMLScalar(text: text, style: style, location: template.location)
        var mapping = template
        if type.settings(as: JSONWSSourceSpec.self) != nil {
            for section in ["rows", "count"] { mapping = setting(name, to: scalar, under: [section, "params"], in: mapping) }
        } else {
            mapping = setting(name, to: scalar, under: ["query"], in: mapping)
        }
        return mapping
    }

    /// `mapping` with `path` (created when missing, except its first step) holding `name: scalar`.
    private static func setting(_ name: String, to scalar: YAMLScalar, under path: [String], in mapping: YAMLMapping) -> YAMLMapping {
        var mapping = mapping
        guard let step = path.first else {
            let key = YAMLScalar(text: name, style: .plain, location: mapping.location)
            mapping.pairs.removeAll { $0.key.text == name }
            mapping.pairs.append(YAMLMapping.Pair(key: key, value: .scalar(scalar)))
            return mapping
        }
        if let index = mapping.pairs.firstIndex(where: { $0.key.text == step }) {
            guard case .mapping(let inner) = mapping.pairs[index].value else { return mapping }
            mapping.pairs[index].value = .mapping(setting(name, to: scalar, under: Array(path.dropFirst()), in: inner))
        } else if path.count == 1 {
            let inner = setting(name, to: scalar, under: [], in: YAMLMapping(pairs: [], location: mapping.location))
            mapping.pairs.append(YAMLMapping.Pair(key: YAMLScalar(text: step, style: .plain, location: mapping.location), value: .mapping(inner)))
        }
        return mapping
    }
}
