import ScreensBus

/// Keeps image uploads and deletes as pending writes in the outbox (`write-policy`
/// `cache-only`, and the first step of `cache-first` and `remote-first`), as Screens' image
/// gallery keeps an upload in its cache for `SyncManager`: an upload's file is copied into
/// the ``UploadSpool``, and the kept row names the copy.
///
/// Rows are checked as the uploading writer checks them (the file must exist, be inside
/// the files directory, be a regular file...), so a bad row is rejected now, not at sync.
/// An upload the journal says was made from the same file, with nothing pending for its
/// key, is `unchanged`; an upload that differs from the one the journal recorded is
/// rejected, as the uploading writer rejects it (an upload never replaces an entry).
final class ImageOutboxWriter: CheckingRowWriter {
    private let validator: ImageRowValidator
    private let outbox: Outbox
    private let spool: UploadSpool
    private let events: WriteEvents
    private let journaled: JournalRecords
    private var seenKeys: [String: Int] = [:]
    /// The keys this write kept, in input order: what `remote-first` sends.
    private(set) var keptKeys: [String] = []
    private(set) var summary = WriteSummary()

    init(
        spec: LiferaySinkSpec, filesDirectory: String, outbox: Outbox, spool: UploadSpool, journal: WriteJournal, events: WriteEvents
    ) async throws(ScreensPipeError) {
        validator = try ImageRowValidator(spec: spec, filesDirectory: filesDirectory)
        self.outbox = outbox
        self.spool = spool
        self.events = events
        journaled = try await journal.records()
    }

    func check(_ value: JSONValue, line: Int) throws(RowRejection) -> ImageRow {
        try validator.row(value, line: line)
    }

    func write(_ row: ImageRow) async throws(ScreensPipeError) {
        if let first = seenKeys[row.key] {
            try await reject(line: row.line, input: row.inputText, truncated: false, reason: "the same \(row.keyDescription) as line \(first)")
            return
        }
        seenKeys[row.key] = row.line
        let pending = try await outbox.entry(key: row.key)
        if pending == nil, let record = journaled[row.key], record.state != .pending {
            guard record.content == row.content else {
                try await reject(line: row.line, input: row.inputText, truncated: false, reason: row.replacingReason(record))
                return
            }
            summary.skipped += 1
            await result(row, "unchanged", operation: nil, reason: "written by an earlier run (journal)")
            return
        }
        let kept: JSONValue
        let operation: OutboxOperation
        switch row.operation {
        case .upload:
            kept = row.kept(file: try spool.keep(row.path))
            operation = .add
        case .delete:
            kept = row.kept(file: "")
            operation = .delete
        }
        // A pending upload of the same title is replaced; its copy goes at the next sweep.
        switch try await outbox.keep(key: row.key, operation: operation, row: kept.jsonString, baseVersion: nil) {
        case .pending(let keptAs, _):
            keptKeys.append(row.key)
            summary.pending += 1
            await result(row, "pending", operation: keptAs, reason: nil)
        case .cancelled:
            await result(row, "cancelled", operation: nil, reason: "a delete of an entry whose add was still pending: neither is sent")
        }
    }

    func reject(line: Int, input: String?, truncated: Bool, reason: String) async throws(ScreensPipeError) {
        summary.rejected += 1
        try await events.reject(line: line, input: input, truncated: truncated, reason: reason)
    }

    func finish() async throws(ScreensPipeError) -> WriteSummary {
        summary.rejectsPath = try events.rejects.close()
        return summary
    }

    private func result(_ row: ImageRow, _ outcome: String, operation: OutboxOperation?, reason: String?) async {
        var details = row.resultDetails(id: nil)
        if let operation { details["operation"] = .string(operation.rawValue) }
        if let reason { details["reason"] = .string(reason) }
        await events.result(line: row.line, outcome: outcome, details: details)
    }
}
