import ScreensBus

/// Writes image rows (`service: image`): each upload a multipart request of its own, its
/// file streamed from disk with `progress` events; each delete a `/dlapp/delete-file-entry`
/// command, or over headless a `DELETE .../documents/{id}` (``ImageUploadTransport``). One
/// row at a time, in input order, exactly once each with the journal.
///
/// An upload is recorded pending before its request, so a run that is killed or cancelled
/// (SIGINT) mid-transfer leaves the journal saying "maybe": the next run looks the folder
/// up for the row's title and size before it sends the file again. An upload whose answer
/// is lost is looked up the same way before any resend. A delete is sent again after an
/// ambiguous failure, and the portal's NoSuchFileEntryException then means it was done.
final class ImageUploadWriter: CheckingRowWriter {
    private let validator: ImageRowValidator
    private let transport: ImageUploadTransport
    private let uploader: DocumentUploader
    private let journal: WriteJournal?
    private let bus: EventBus
    private let pipeline: String
    private let events: WriteEvents
    private let rejects: RejectsFile
    private let dryRun: Bool
    private var journaled = JournalRecords()
    private var seenKeys: [String: Int] = [:]
    private var requestNumber = 0
    private(set) var summary = WriteSummary()

    init(
        spec: LiferaySinkSpec, pipeline: String, transport: ImageUploadTransport, filesDirectory: String, keptRows: Bool = false,
        journal: WriteJournal?, bus: EventBus, rejects: RejectsFile, dryRun: Bool
    ) async throws(ScreensPipeError) {
        validator = try ImageRowValidator(spec: spec, filesDirectory: filesDirectory, keptRows: keptRows)
        self.transport = transport
        uploader = DocumentUploader(transport: transport, journal: journal, bus: bus, pipeline: pipeline)
        self.journal = journal
        self.bus = bus
        self.pipeline = pipeline
        self.rejects = rejects
        events = WriteEvents(bus: bus, pipeline: pipeline, rejects: rejects)
        self.dryRun = dryRun
        journaled = try await journal?.records() ?? JournalRecords()
    }

    func check(_ value: JSONValue, line: Int) throws(RowRejection) -> ImageRow {
        try validator.row(value, line: line)
    }

    func finish() async throws(ScreensPipeError) -> WriteSummary {
        summary.rejectsPath = try rejects.close()
        return summary
    }

    // MARK: - Rows

    func write(_ row: ImageRow) async throws(ScreensPipeError) {
        if let first = seenKeys[row.key] {
            try await reject(line: row.line, input: row.inputText, truncated: false, reason: "the same \(row.keyDescription) as line \(first)")
            return
        }
        seenKeys[row.key] = row.line
        let record = journaled[row.key]
        if let record, record.state != .pending {
            guard record.content == row.content else {
                try await reject(line: row.line, input: row.inputText, truncated: false, reason: row.replacingReason(record))
                return
            }
            summary.skipped += 1
            await result(row, "unchanged", id: record.entryId, reason: "written by an earlier run (journal)")
            return
        }
        if dryRun {
            try await plan(row)
            return
        }
        switch row.operation {
        case .upload: try await upload(row, undecided: record?.state == .pending)
        case .delete: try await delete(row, undecided: record?.state == .pending)
        }
    }

    private func plan(_ row: ImageRow) async throws(ScreensPipeError) {
        summary.plannedRequests += 1
        switch row.operation {
        case .upload:
            try await uploader.plan(row)
            summary.plannedCreates += 1
        case .delete:
            let request = try transport.deleteRequest(row)
            await events.plan(request)
            summary.plannedDeletes += 1
        }
        await result(row, "planned", id: nil)
    }

    /// One upload at a time, each after a lookup when the last one went unanswered (or an
    /// earlier run's did): ``DocumentUploader``.
    private func upload(_ row: ImageRow, undecided: Bool) async throws(ScreensPipeError) {
        let outcome = try await uploader.upload(row, undecided: undecided)
        requestNumber += outcome.requests
        summary.batches += outcome.requests
        if outcome.answered { await publishResponse(row) }
        switch outcome.result {
        case .stored(let entry): try await done(row, .created, id: transport.entryId(entry))
        case .refused(let reason): try await reject(line: row.line, input: row.inputText, truncated: false, reason: reason)
        }
    }

    private func delete(_ row: ImageRow, undecided: Bool) async throws(ScreensPipeError) {
        var unanswered = undecided
        var attempt = 1
        while true {
            try await journal?.record([(row: row, state: WriteJournal.State.pending, entryId: Int64?.none)])
            requestNumber += 1
            summary.batches += 1
            switch try await transport.delete(row) {
            case .deleted:
                await publishResponse(row)
                try await done(row, .deleted, id: row.fileEntryId)
                return
            case .refused(let error, let gone):
                await publishResponse(row)
                if unanswered, gone {
                    // The unanswered request deleted it.
                    try await done(row, .deleted, id: row.fileEntryId)
                    return
                }
                try await journal?.forget([row])
                try await reject(line: row.line, input: row.inputText, truncated: false, reason: DocumentUploader.reason(error))
                return
            case .ambiguous(let reason):
                guard attempt < transport.settings.retry.attempts else {
                    throw ScreensPipeError.connectivity(
                        "line \(row.line) (delete \(row.fileEntryId)) got no answer after \(attempt) attempts (\(reason)); the journal keeps it pending, and a rerun sends it again")
                }
                unanswered = true
                let delay = transport.settings.retry.exponentialDelay(beforeRetry: attempt)
                attempt += 1
                do { try await Task.sleep(for: delay) } catch { throw ScreensPipeError(.cancelled, "the write was cancelled") }
            }
        }
    }

    private func done(_ row: ImageRow, _ state: WriteJournal.State, id: Int64?) async throws(ScreensPipeError) {
        try await journal?.record([(row: row, state: state, entryId: id)])
        summary.count(state)
        journaled[row.key] = WriteJournal.Record(state: state, content: row.content, entryId: id)
        await result(row, state.rawValue, id: id)
    }

    func reject(line: Int, input: String?, truncated: Bool, reason: String) async throws(ScreensPipeError) {
        summary.rejected += 1
        try await events.reject(line: line, input: input, truncated: truncated, reason: reason)
    }

    private func result(_ row: ImageRow, _ outcome: String, id: Int64?, reason: String? = nil) async {
        var details = row.resultDetails(id: id)
        if let reason { details["reason"] = .string(reason) }
        await events.result(line: row.line, outcome: outcome, details: details)
    }

    private func publishResponse(_ row: ImageRow) async {
        await bus.publish(
            .response(ListResponse(pipeline: pipeline, page: requestNumber - 1, startRow: row.line, endRow: row.line + 1, rowCount: nil, rows: 1, origin: .remote)))
    }
}
