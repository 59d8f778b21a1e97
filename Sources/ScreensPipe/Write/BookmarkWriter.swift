package import Logging
import ScreensBus

/// Writes rows to a portal as a `liferay` sink says, exactly once each, and tells the bus
/// how each one ended.
///
/// Rows are checked first (a reject never reaches the portal), then sent in batches in
/// input order. Every row ends as one `result` event on the bus: `created`, `updated`,
/// `unchanged` or `rejected` with the reason, the delegate's `onSuccess`/`onFailure` of Add
/// Bookmark Screenlet. A rejected row is also an `error` event and a line of the rejects
/// file; each answered batch is a `response` event.
///
/// Exactly once: an `add-entry` whose answer was lost (a reset, a timeout, a gateway's 5xx)
/// is never sent again blindly. The folder is looked up by the rows' key first, and only
/// the rows still missing are sent again. The journal marks rows `pending` before their
/// batch is sent, so a run killed mid-batch leaves the next run the same question, which it
/// answers the same way.
final class BookmarkWriter: RowWriter {
    /// What a batch does to one row.
    private enum Operation {
        case add
        case update(entryId: Int64)
    }

    private struct Planned {
        var row: BookmarkRow
        var operation: Operation
    }

    private let spec: LiferaySinkSpec
    private let pipeline: String
    private let transport: JSONWSBookmarkTransport
    private let journal: WriteJournal?
    private let bus: EventBus
    private let rejects: RejectsFile
    private let events: WriteEvents
    private let dryRun: Bool
    private var journaled: [String: WriteJournal.Record] = [:]
    private var seenKeys: [String: Int] = [:]
    private var batch: [BookmarkRow] = []
    private var batchNumber = 0
    private(set) var summary = WriteSummary()

    init(
        spec: LiferaySinkSpec, pipeline: String, transport: JSONWSBookmarkTransport, journal: WriteJournal?,
        bus: EventBus, rejects: RejectsFile, dryRun: Bool
    ) async throws(ScreensPipeError) {
        self.spec = spec
        self.pipeline = pipeline
        self.transport = transport
        self.journal = journal
        self.bus = bus
        self.rejects = rejects
        events = WriteEvents(bus: bus, pipeline: pipeline, rejects: rejects)
        self.dryRun = dryRun
        journaled = try await journal?.records() ?? [:]
    }

    /// Takes one input line.
    func take(_ line: WriteInputLine) async throws(ScreensPipeError) {
        switch Result(catching: { () throws(RowRejection) in try BookmarkRowValidator.row(line, spec: spec) }) {
        case .success(let row): try await accept(row)
        case .failure(let rejection):
            try await reject(
                line: line.number, input: String(decoding: line.bytes, as: UTF8.self), truncated: line.truncated,
                reason: rejection.message)
        }
    }

    /// Takes one row of a source's list (copying), numbered from 1.
    func take(row value: JSONValue, number: Int) async throws(ScreensPipeError) {
        switch Result(catching: { () throws(RowRejection) in try BookmarkRowValidator.row(value, line: number, spec: spec) }) {
        case .success(let row): try await accept(row)
        case .failure(let rejection): try await reject(line: number, input: value.jsonString, truncated: false, reason: rejection.message)
        }
    }

    /// Sends what is left and closes the rejects file.
    func finish() async throws(ScreensPipeError) -> WriteSummary {
        try await flush()
        summary.rejectsPath = try rejects.close()
        return summary
    }

    // MARK: - Rows

    private func accept(_ row: BookmarkRow) async throws(ScreensPipeError) {
        if let first = seenKeys[row.key] {
            try await reject(line: row.line, input: row.inputText, truncated: false, reason: "the same entry (key \(spec.key.joined(separator: "+"))) as line \(first)")
            return
        }
        seenKeys[row.key] = row.line
        if let record = journaled[row.key], record.state != .pending, record.content == row.content {
            summary.skipped += 1
            await result(row, "unchanged", entryId: record.entryId, reason: "written by an earlier run (journal)")
            return
        }
        batch.append(row)
        if batch.count >= spec.batchSize { try await flush() }
    }

    private func reject(line: Int, input: String?, truncated: Bool, reason: String) async throws(ScreensPipeError) {
        summary.rejected += 1
        try await events.reject(line: line, input: input, truncated: truncated, reason: reason)
    }

    private func result(_ row: BookmarkRow, _ outcome: String, entryId: Int64?, reason: String? = nil) async {
        var details = JSONObject()
        if let entryId { details["entryId"] = .int(entryId) }
        details["url"] = .string(row.url)
        details["folderId"] = .int(row.folderId)
        if let reason { details["reason"] = .string(reason) }
        await events.result(line: row.line, outcome: outcome, details: details)
    }

    // MARK: - Batches

    private func flush() async throws(ScreensPipeError) {
        guard !batch.isEmpty else { return }
        let rows = batch
        batch = []
        var planned: [Planned] = []
        var undecided: [BookmarkRow] = []
        for row in rows {
            switch journaled[row.key] {
            case .some(let record) where record.state == .pending:
                undecided.append(row)  // an earlier run sent it and never saw the answer
            case .some(let record):
                if let entryId = record.entryId { planned.append(Planned(row: row, operation: .update(entryId: entryId))) }
                else { undecided.append(row) }
            case nil:
                planned.append(Planned(row: row, operation: .add))
            }
        }
        if !undecided.isEmpty {
            planned += try await settleByLookup(undecided.map { Planned(row: $0, operation: .add) }, sent: false)
            planned.sort { $0.row.line < $1.row.line }
        }
        try await send(planned)
    }

    /// Sends `planned` until every row has an answer; an ambiguous failure is settled by a
    /// lookup before anything is sent again.
    private func send(_ planned: [Planned]) async throws(ScreensPipeError) {
        var remaining = planned
        var attempt = 1
        while !remaining.isEmpty {
            let commands = remaining.map(command(for:))
            if dryRun {
                try await publishPlan(commands)
                for item in remaining { await result(item.row, "planned", entryId: nil) }
                return
            }
            try await journal?.record(remaining.map { ($0.row, .pending, nil) })
            batchNumber += 1
            summary.batches += 1
            switch try await transport.send(commands) {
            case .results(let results):
                await publishResponse(remaining)
                var outcomes: [(row: BookmarkRow, state: WriteJournal.State, entryId: Int64?)] = []
                for (item, answer) in zip(remaining, results) {
                    let entryId = answer["entryId"]?.int64Value
                    let state: WriteJournal.State = if case .add = item.operation { .created } else { .updated }
                    outcomes.append((item.row, state, entryId))
                }
                try await journal?.record(outcomes)
                for outcome in outcomes { await done(outcome.row, outcome.state, entryId: outcome.entryId) }
                return
            case .refused(let error):
                await publishResponse(remaining)
                guard remaining.count > 1 else {
                    try await journal?.forget([remaining[0].row])
                    let reason = [error.exceptionType, error.message].compactMap { $0 }.joined(separator: ": ")
                    try await reject(line: remaining[0].row.line, input: remaining[0].row.inputText, truncated: false, reason: "the portal refused it: \(reason)")
                    return
                }
                // Commands before the refused one may have run: settle them, then send the
                // rest one by one so each gets its own answer.
                for item in try await settleByLookup(remaining, sent: true) { try await send([item]) }
                return
            case .ambiguous(let reason):
                guard attempt < transport.settings.retry.attempts else {
                    let lines = remaining.map { String($0.row.line) }.joined(separator: ", ")
                    throw ScreensPipeError.connectivity(
                        "batch \(batchNumber) (lines \(lines)) got no answer after \(attempt) attempts (\(reason)); the journal keeps them pending, and a rerun looks them up before writing")
                }
                let delay = transport.settings.retry.exponentialDelay(beforeRetry: attempt)
                attempt += 1
                transport.settings.logger.warning("batch \(batchNumber) got no answer (\(reason)); looking its entries up before sending again")
                do { try await Task.sleep(for: delay) } catch { throw ScreensPipeError(.cancelled, "the write was cancelled") }
                do throws(ScreensPipeError) {
                    remaining = try await settleByLookup(remaining, sent: true)
                } catch {
                    let lines = remaining.map { String($0.row.line) }.joined(separator: ", ")
                    throw ScreensPipeError(
                        error.code,
                        "batch \(batchNumber) (lines \(lines)) got no answer (\(reason)) and the lookup that would settle it failed: \(error.message); the journal keeps them pending, and a rerun looks them up before writing",
                        request: error.request, status: error.status)
                }
            }
        }
    }

    /// Looks `planned` up by key: rows found are done (their outcome recorded and published),
    /// the rest come back to be sent.
    ///
    /// `sent` says this run sent them (or an earlier run did, whose journal kept them
    /// pending): an entry found with the row's values was created by that request.
    private func settleByLookup(_ planned: [Planned], sent: Bool) async throws(ScreensPipeError) -> [Planned] {
        var byFolder: [Int64: [String: JSONWSBookmarkTransport.Found]] = [:]
        var missing: [Planned] = []
        var outcomes: [(row: BookmarkRow, state: WriteJournal.State, entryId: Int64?)] = []
        for item in planned {
            if byFolder[item.row.folderId] == nil {
                do throws(ScreensPipeError) {
                    byFolder[item.row.folderId] = try await transport.lookup(
                        groupId: item.row.groupId, folderId: item.row.folderId, keyFields: spec.key)
                } catch where error.code == .http && error.status.map({ (400..<500).contains($0) }) == true {
                    // The portal refuses to list the folder (it does not exist, or the user
                    // may not see it): nothing was created in it. Sent alone, each row gets
                    // the portal's own reason.
                    byFolder[item.row.folderId] = [:]
                }
            }
            guard let found = byFolder[item.row.folderId]?[item.row.key] else {
                missing.append(Planned(row: item.row, operation: .add))
                continue
            }
            if found.content == item.row.content {
                let state: WriteJournal.State =
                    if case .update = item.operation { .updated } else if sent || journaled[item.row.key]?.state == .pending { .created } else { .unchanged }
                outcomes.append((item.row, state, found.entryId))
            } else {
                missing.append(Planned(row: item.row, operation: .update(entryId: found.entryId)))
            }
        }
        try await journal?.record(outcomes)
        for outcome in outcomes { await done(outcome.row, outcome.state, entryId: outcome.entryId) }
        return missing
    }

    private func done(_ row: BookmarkRow, _ state: WriteJournal.State, entryId: Int64?) async {
        switch state {
        case .created: summary.created += 1
        case .updated: summary.updated += 1
        case .unchanged, .pending: summary.unchanged += 1
        }
        journaled[row.key] = WriteJournal.Record(state: state, content: row.content, entryId: entryId)
        await result(row, state.rawValue, entryId: entryId)
    }

    private func command(for item: Planned) -> (service: String, params: JSONObject) {
        switch item.operation {
        case .add: ("/bookmarks.bookmarksentry/add-entry", item.row.parameters())
        case .update(let entryId): ("/bookmarks.bookmarksentry/update-entry", item.row.parameters(entryId: entryId))
        }
    }

    private func publishResponse(_ items: [Planned]) async {
        guard let first = items.first?.row.line, let last = items.last?.row.line else { return }
        await bus.publish(
            .response(ListResponse(pipeline: pipeline, page: batchNumber - 1, startRow: first, endRow: last + 1, rowCount: nil, rows: items.count, origin: .remote)))
    }

    /// `--dry-run`: the request as it would be sent, credentials redacted.
    private func publishPlan(_ commands: [(service: String, params: JSONObject)]) async throws(ScreensPipeError) {
        await events.plan(try transport.request(commands))
    }
}

extension BookmarkRow {
    /// The row as a rejects file shows it when its input line is not at hand.
    var inputText: String {
        JSONValue.object(["name": .string(name), "url": .string(url), "description": .string(description), "folderId": .int(folderId)]).jsonString
    }
}

/// How a write ended, row by row.
public struct WriteSummary: Sendable, Hashable {
    public var created = 0
    public var updated = 0
    public var unchanged = 0
    /// Rows the journal says an earlier run wrote, with the same values.
    public var skipped = 0
    public var rejected = 0
    /// Requests that carried writes.
    public var batches = 0
    /// The rejects file, when a row was rejected.
    public var rejectsPath: String?

    public init() {}
}
