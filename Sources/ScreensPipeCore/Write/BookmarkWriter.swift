internal import Logging
import ScreensBus

/// Writes rows to a portal through JSON-WS batches as a `liferay` sink says, exactly once
/// each, and tells the bus how each one ended; `Model` is the service (bookmarks, web
/// content, DDL records, or a declared service's `fields`).
///
/// Rows are checked first (a reject never reaches the portal), then sent in batches in
/// input order. Every row ends as one `result` event on the bus: `created`, `updated`,
/// `unchanged` or `rejected` with the reason, the delegate's `onSuccess`/`onFailure` of Add
/// Bookmark Screenlet. A rejected row is also an `error` event and a line of the rejects
/// file; each answered batch is a `response` event.
///
/// Exactly once: an add command whose answer was lost (a reset, a timeout, a gateway's 5xx)
/// is never sent again blindly. The entries are looked up by the rows' key first (a
/// bookmark folder's `get-entries`, say), and only the rows still missing are sent again. The journal marks rows `pending` before their
/// batch is sent, so a run killed mid-batch leaves the next run the same question, which it
/// answers the same way.
final class JSONWSWriter<Model: JSONWSWriteModel>: RowWriter {
    typealias Row = Model.Row

    /// What a batch does to one row.
    private enum Operation {
        case add
        case update(FoundEntry)
        /// The row removes the entry `found` (``JSONWSWriteModel/removal(_:)``).
        case delete(FoundEntry, EntryRemoval)
    }

    private struct Planned {
        var row: Row
        var operation: Operation
    }

    private let spec: LiferaySinkSpec
    private let model: Model
    private let pipeline: String
    private let transport: JSONWSBookmarkTransport
    private let journal: WriteJournal?
    private let bus: EventBus
    private let rejects: RejectsFile
    private let events: WriteEvents
    private let dryRun: Bool
    private var journaled = JournalRecords()
    private var seenKeys: [String: Int] = [:]
    private var batch: [Row] = []
    private var batchNumber = 0
    private(set) var summary = WriteSummary()

    init(
        spec: LiferaySinkSpec, model: Model, pipeline: String, transport: JSONWSBookmarkTransport, journal: WriteJournal?,
        bus: EventBus, rejects: RejectsFile, dryRun: Bool
    ) async throws(ScreensPipeError) {
        self.spec = spec
        self.model = model
        self.pipeline = pipeline
        self.transport = transport
        self.journal = journal
        self.bus = bus
        self.rejects = rejects
        events = WriteEvents(bus: bus, pipeline: pipeline, rejects: rejects)
        self.dryRun = dryRun
        journaled = try await journal?.records() ?? JournalRecords()
    }

    /// Takes one input line.
    func take(_ line: WriteInputLine) async throws(ScreensPipeError) {
        switch Result(catching: { () throws(RowRejection) in try model.row(WriteRowParsing.object(line), line: line.number) }) {
        case .success(let row): try await accept(row)
        case .failure(let rejection):
            try await reject(
                line: line.number, input: String(decoding: line.bytes, as: UTF8.self), truncated: line.truncated,
                reason: rejection.message)
        }
    }

    /// Takes one row of a source's list (copying), numbered from 1.
    func take(row value: JSONValue, number: Int) async throws(ScreensPipeError) {
        switch Result(catching: { () throws(RowRejection) in try model.row(value, line: number) }) {
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

    private func accept(_ row: Row) async throws(ScreensPipeError) {
        if let first = seenKeys[row.key] {
            try await reject(line: row.line, input: model.inputText(row), truncated: false, reason: "the same entry (key \(spec.key.joined(separator: "+"))) as line \(first)")
            return
        }
        seenKeys[row.key] = row.line
        if let legacy = journaled.claimLegacy(row) { try await journal?.migrate(row, legacy) }
        if let record = journaled[row.key], record.state != .pending, record.content == row.content {
            summary.skipped += 1
            await result(row, "unchanged", entryId: record.entryId, reason: "written by an earlier run (journal)")
            return
        }
        if model.sendsAlone(row) { try await flush() }
        batch.append(row)
        if batch.count >= spec.batchSize || model.sendsAlone(row) { try await flush() }
    }

    private func reject(line: Int, input: String?, truncated: Bool, reason: String) async throws(ScreensPipeError) {
        summary.rejected += 1
        try await events.reject(line: line, input: input, truncated: truncated, reason: reason)
    }

    private func result(_ row: Row, _ outcome: String, entryId: Int64?, reason: String? = nil) async {
        var details = JSONObject()
        if let entryId { details[model.idField] = .int(entryId) }
        for (name, value) in model.details(row) { details[name] = value }
        if let reason { details["reason"] = .string(reason) }
        await events.result(line: row.line, outcome: outcome, details: details)
    }

    // MARK: - Batches

    private func flush() async throws(ScreensPipeError) {
        guard !batch.isEmpty else { return }
        let rows = batch
        batch = []
        var planned: [Planned] = []
        var undecided: [Row] = []
        for row in rows {
            if let removal = model.removal(row) {
                // A delete needs its entry's id: the journal's, else (or when the command
                // needs more than the id) a lookup by key.
                if !removal.needsLookup, let record = journaled[row.key], record.state != .pending, record.state != .deleted, let entryId = record.entryId {
                    planned.append(Planned(row: row, operation: .delete(FoundEntry(id: entryId, content: record.content), removal)))
                } else {
                    undecided.append(row)
                }
                continue
            }
            switch journaled[row.key] {
            case .some(let record) where record.state == .pending:
                undecided.append(row)  // an earlier run sent it and never saw the answer
            case .some(let record) where record.state == .deleted && journal?.othersMayWrite != true:
                planned.append(Planned(row: row, operation: .add))  // a row this journal deleted is created again
            case .some(let record) where record.state == .deleted:
                undecided.append(row)
            case .some(let record):
                // A changed row: its entry is updated in place, found by the journal's id
                // unless the service's update needs what only a lookup tells (a version).
                if !model.canUpdate {
                    try await rejectChanged(row)
                } else if let entryId = record.entryId, !model.updatesNeedLookup {
                    planned.append(Planned(row: row, operation: .update(FoundEntry(id: entryId, content: record.content))))
                } else {
                    undecided.append(row)
                }
            case nil where journal?.othersMayWrite == true:
                undecided.append(row)  // another machine's run may have written it
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
                summary.plannedRequests += 1
                for item in remaining {
                    switch item.operation {
                    case .add where model.outcome(ofFirstCommand: item.row) == .deleted: summary.plannedDeletes += 1
                    case .add where model.outcome(ofFirstCommand: item.row) == .updated: summary.plannedUpdates += 1
                    case .add: summary.plannedCreates += 1
                    case .update: summary.plannedUpdates += 1
                    case .delete: summary.plannedDeletes += 1
                    }
                    await result(item.row, "planned", entryId: nil)
                }
                return
            }
            try await journal?.record(remaining.map { (row: $0.row, state: WriteJournal.State.pending, entryId: Int64?.none) })
            batchNumber += 1
            summary.batches += 1
            switch try await transport.send(commands) {
            case .results(let results):
                await publishResponse(remaining)
                var outcomes: [(row: Row, state: WriteJournal.State, entryId: Int64?)] = []
                for (item, answer) in zip(remaining, results) {
                    switch item.operation {
                    case .add: outcomes.append((item.row, model.outcome(ofFirstCommand: item.row), model.id(ofResult: answer)))
                    case .update: outcomes.append((item.row, .updated, model.id(ofResult: answer)))
                    // `delete-entry` answers nothing: the id is the one it was sent with.
                    case .delete(let entry, _): outcomes.append((item.row, .deleted, entry.id))
                    }
                }
                try await journal?.record(outcomes)
                for outcome in outcomes { await done(outcome.row, outcome.state, entryId: outcome.entryId) }
                return
            case .refused(let error):
                await publishResponse(remaining)
                guard remaining.count > 1 else {
                    let refused = remaining[0]
                    try await unmarkPending([refused])
                    let reason = [error.exceptionType, error.message].compactMap { $0 }.joined(separator: ": ")
                    try await reject(line: remaining[0].row.line, input: model.inputText(remaining[0].row), truncated: false, reason: "the portal refused it: \(reason)")
                    return
                }
                // Commands before the refused one may have run: settle them, then send the
                // rest one by one so each gets its own answer.
                for item in try await settleByLookup(remaining, sent: true) { try await send([item]) }
                return
            case .notSent(let reason):
                guard attempt < transport.settings.retry.attempts else {
                    // Nothing was carried out: the journal must not keep the rows pending, or a
                    // service without a lookup could never send them again.
                    try await unmarkPending(remaining)
                    let lines = remaining.map { String($0.row.line) }.joined(separator: ", ")
                    throw ScreensPipeError.connectivity(
                        "batch \(batchNumber) (lines \(lines)) could not be sent after \(attempt) attempts (\(reason)); nothing of it was written, and a rerun sends it")
                }
                let delay = transport.settings.retry.exponentialDelay(beforeRetry: attempt)
                attempt += 1
                transport.settings.logger.warning("batch \(batchNumber) could not be sent (\(reason)); sending it again")
                do { try await Task.sleep(for: delay) } catch {
                    try await unmarkPending(remaining)
                    throw ScreensPipeError(.cancelled, "the write was cancelled")
                }
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
        guard let found = try await model.lookup(planned.map(\.row), transport: transport) else {
            // Rows no journal knows were only to be checked in case another machine wrote
            // them: without a lookup they are created, as on one machine.
            if !sent, planned.allSatisfy({ journaled[$0.row.key] == nil }) { return planned }
            throw ScreensPipeError.connectivity(
                "\(model.serviceName) has no lookup to tell whether lines \(planned.map { String($0.row.line) }.joined(separator: ", ")) were written, so they are not sent again: check the portal, and when they are not there, rerun with --forget-pending to send them")
        }
        var missing: [Planned] = []
        var outcomes: [(row: Row, state: WriteJournal.State, entryId: Int64?)] = []
        for item in planned {
            if let removal = model.removal(item.row) {
                if let entry = found[item.row.key] {
                    missing.append(Planned(row: item.row, operation: .delete(entry, removal)))
                } else if sent || journaled[item.row.key]?.state == .pending {
                    outcomes.append((item.row, .deleted, journaled[item.row.key]?.entryId))  // the lost answer's delete was carried out
                } else {
                    try await reject(
                        line: item.row.line, input: model.inputText(item.row), truncated: false,
                        reason: "no entry with this key (\(spec.key.joined(separator: "+"))) is on the portal, so there is nothing to delete")
                }
                continue
            }
            guard let entry = found[item.row.key] else {
                missing.append(Planned(row: item.row, operation: .add))
                continue
            }
            if entry.content == item.row.content {
                let state: WriteJournal.State =
                    if case .update = item.operation {
                        .updated
                    } else if sent || journaled[item.row.key]?.state == .pending {
                        model.outcome(ofFirstCommand: item.row)
                    } else {
                        .unchanged
                    }
                outcomes.append((item.row, state, entry.id))
            } else if model.canUpdate {
                missing.append(Planned(row: item.row, operation: .update(entry)))
            } else {
                try await rejectChanged(item.row)
            }
        }
        try await journal?.record(outcomes)
        for outcome in outcomes { await done(outcome.row, outcome.state, entryId: outcome.entryId) }
        return missing
    }

    /// Puts the journal back as it was before `items` were marked pending, once the portal
    /// is known to have carried none of them out (refused, or never reached): a create is
    /// forgotten, and an update leaves the entry as it was, so the next run updates it
    /// instead of creating a second one.
    private func unmarkPending(_ items: [Planned]) async throws(ScreensPipeError) {
        for item in items {
            switch item.operation {
            case .add:
                try await journal?.forget([item.row])
            case .update(let entry), .delete(let entry, _):
                let before = journaled[item.row.key].map(\.state).flatMap { $0 == .pending ? nil : $0 } ?? .created
                try await journal?.restore(item.row, to: WriteJournal.Record(state: before, content: entry.content, entryId: entry.id))
            }
        }
    }

    /// A row whose entry holds other values, for a service that cannot change it.
    private func rejectChanged(_ row: Row) async throws(ScreensPipeError) {
        try await reject(
            line: row.line, input: model.inputText(row), truncated: false,
            reason: "an earlier run wrote this entry with other values, and \(model.serviceName) declares no update command")
    }

    private func done(_ row: Row, _ state: WriteJournal.State, entryId: Int64?) async {
        summary.count(state)
        journaled[row.key] = WriteJournal.Record(state: state, content: row.content, entryId: entryId)
        await result(row, state.rawValue, entryId: entryId)
    }

    private func command(for item: Planned) -> JSONWSCommand {
        switch item.operation {
        case .add: model.addCommand(item.row)
        case .update(let entry): model.updateCommand(item.row, entry)
        case .delete(let entry, let removal): removal.command(entry)
        }
    }

    private func publishResponse(_ items: [Planned]) async {
        guard let first = items.first?.row.line, let last = items.last?.row.line else { return }
        await bus.publish(
            .response(ListResponse(pipeline: pipeline, page: batchNumber - 1, startRow: first, endRow: last + 1, rowCount: nil, rows: items.count, origin: .remote)))
    }

    /// `--dry-run`: the request as it would be sent, credentials redacted.
    private func publishPlan(_ commands: [JSONWSCommand]) async throws(ScreensPipeError) {
        await events.plan(try transport.request(commands))
    }
}

/// How a write ended, row by row.
public struct WriteSummary: Sendable, Hashable {
    public var created = 0
    public var updated = 0
    /// Rows that deleted their entry (`service: comment`, `op: delete`).
    public var deleted = 0
    public var unchanged = 0
    /// Rows the journal says an earlier run wrote, with the same values.
    public var skipped = 0
    public var rejected = 0
    /// Rows kept in the outbox for a later sync (`write-policy` other than `remote-only`).
    public var pending = 0
    /// Requests that carried writes.
    public var batches = 0
    /// `--dry-run`: rows a request would create, would update, or would create or update
    /// (a PUT by external reference code: only the portal knows which), and the requests
    /// that would carry them. None was sent, so they are not in ``created``, ``updated`` or
    /// ``batches``.
    public var plannedCreates = 0
    public var plannedUpdates = 0
    public var plannedUpserts = 0
    /// `--dry-run`: rows a request would delete (`service: comment`).
    public var plannedDeletes = 0
    public var plannedRequests = 0
    /// The rejects file, when a row was rejected.
    public var rejectsPath: String?

    public init() {}

    /// Counts a row whose write ended in `state` (as the journal records it).
    mutating func count(_ state: WriteJournal.State) {
        switch state {
        case .created: created += 1
        case .updated: updated += 1
        case .deleted: deleted += 1
        case .unchanged, .pending: unchanged += 1
        }
    }
}
