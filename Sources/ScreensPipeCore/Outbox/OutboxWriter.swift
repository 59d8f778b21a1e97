import ScreensBus

/// Keeps each row as a pending write in the outbox instead of sending it (`write-policy`
/// `cache-only`, and the first step of `cache-first` and `remote-first`): the
/// `defaultStrategyWriteToCache` of Screens' write interactors.
///
/// Rows are checked as the sending writer checks them, so a row the portal would refuse
/// for its shape is rejected now, not at sync. A row the journal says was written with the
/// same values, with nothing pending for its key, is `unchanged`; any other row is kept,
/// collapsed with its key's pending write, and ends as a `pending` result.
final class OutboxWriter<Model: JSONWSWriteModel>: RowWriter {
    private let model: Model
    private let spec: LiferaySinkSpec
    private let outbox: Outbox
    private let events: WriteEvents
    private let rejects: RejectsFile
    private let journal: WriteJournal
    private let journaled: JournalRecords
    private var seenKeys: [String: Int] = [:]
    /// The keys this write kept, in input order: what `remote-first` sends.
    private(set) var keptKeys: [String] = []
    private(set) var summary = WriteSummary()

    init(model: Model, spec: LiferaySinkSpec, outbox: Outbox, journal: WriteJournal, events: WriteEvents, rejects: RejectsFile)
        async throws(ScreensPipeError)
    {
        self.model = model
        self.spec = spec
        self.outbox = outbox
        self.events = events
        self.rejects = rejects
        self.journal = journal
        journaled = try await journal.records()
    }

    func take(_ line: WriteInputLine) async throws(ScreensPipeError) {
        let value: JSONValue
        do throws(RowRejection) {
            value = try WriteRowParsing.object(line)
        } catch {
            try await reject(line: line.number, input: String(decoding: line.bytes, as: UTF8.self), truncated: line.truncated, reason: error.message)
            return
        }
        try await take(row: value, number: line.number)
    }

    func take(row value: JSONValue, number: Int) async throws(ScreensPipeError) {
        let row: Model.Row
        do throws(RowRejection) {
            row = try model.row(value, line: number)
        } catch {
            try await reject(line: number, input: value.jsonString, truncated: false, reason: error.message)
            return
        }
        if let first = seenKeys[row.key] {
            try await reject(line: number, input: value.jsonString, truncated: false, reason: "the same entry (key \(spec.key.joined(separator: "+"))) as line \(first)")
            return
        }
        seenKeys[row.key] = number
        let pending = try await outbox.entry(key: row.key)
        // Read after the pending write: another replica's sync records the outcome of a write
        // before it removes it, so a write gone from a shared outbox is in the journal.
        let record = outbox.isShared ? try await journal.scoped(to: [row.key]).records()[row.key] : journaled[row.key]
        if pending == nil, let record, record.state != .pending, record.content == row.content {
            summary.skipped += 1
            await result(number, row, "unchanged", operation: nil, reason: "written by an earlier run (journal)")
            return
        }
        // A row that says what it does (a comment's `op`) keeps that; any other row is an
        // add, or an update of an entry the journal knows.
        let operation: OutboxOperation =
            if model.removal(row) != nil || model.outcome(ofFirstCommand: row) == .deleted {
                .delete
            } else if model.outcome(ofFirstCommand: row) == .updated {
                .update
            } else if let record, record.state != .pending, record.state != .deleted {
                .update
            } else {
                .add
            }
        // An update or delete remembers the version of the entry its row was read from, so a
        // sync can tell whether the portal changed it meanwhile.
        let baseVersion = operation != .add ? value[spec.versionField].flatMap { $0.isNull ? nil : $0.jsonString } : nil
        switch try await outbox.keep(key: row.key, operation: operation, row: value.jsonString, baseVersion: baseVersion) {
        case .pending(let kept, _):
            keptKeys.append(row.key)
            summary.pending += 1
            await result(number, row, "pending", operation: kept, reason: nil)
        case .cancelled:
            await result(number, row, "cancelled", operation: nil, reason: "a delete of an entry whose add was still pending: neither is sent")
        }
    }

    func finish() async throws(ScreensPipeError) -> WriteSummary {
        summary.rejectsPath = try rejects.close()
        return summary
    }

    /// How many rows this write kept pending.
    var keptCount: Int { keptKeys.count }

    private func reject(line: Int, input: String?, truncated: Bool, reason: String) async throws(ScreensPipeError) {
        summary.rejected += 1
        try await events.reject(line: line, input: input, truncated: truncated, reason: reason)
    }

    private func result(_ line: Int, _ row: Model.Row, _ outcome: String, operation: OutboxOperation?, reason: String?) async {
        var details = JSONObject()
        if let operation { details["operation"] = .string(operation.rawValue) }
        for (name, value) in model.details(row) { details[name] = value }
        if let reason { details["reason"] = .string(reason) }
        await events.result(line: line, outcome: outcome, details: details)
    }
}
