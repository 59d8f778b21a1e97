internal import Logging
import ScreensBus

/// Writes web content rows through headless-delivery, one request per row in input order,
/// exactly once each.
///
/// A row with an `externalReferenceCode` is a `PUT .../by-external-reference-code/{erc}`:
/// idempotent, so it is retried like a read, and a run killed mid-write simply sends the
/// rows its journal left pending again. A row without one is a `POST`, which is never sent
/// twice blindly: after an ambiguous failure (a reset, a timeout, a gateway's 5xx) the
/// site's list is looked up by the declared key (`key`, default `[title]`) first, and the
/// row is sent again only when nothing was created.
///
/// A row with `"op":"delete"` removes its article with `DELETE .../structured-contents/{id}`
/// (by `id`, or by the key fields through the journal's id or a lookup), or
/// `DELETE .../by-external-reference-code/{erc}`: idempotent, so sent again after an
/// ambiguous failure, and a 404 after an unanswered attempt means that attempt deleted it.
final class StructuredContentWriter: CheckingRowWriter {
    private let spec: LiferaySinkSpec
    private let transport: HeadlessWriteTransport
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
        spec: LiferaySinkSpec, pipeline: String, transport: HeadlessWriteTransport, journal: WriteJournal?,
        bus: EventBus, rejects: RejectsFile, dryRun: Bool
    ) async throws(ScreensPipeError) {
        self.spec = spec
        self.transport = transport
        self.journal = journal
        self.bus = bus
        self.pipeline = pipeline
        self.rejects = rejects
        events = WriteEvents(bus: bus, pipeline: pipeline, rejects: rejects)
        self.dryRun = dryRun
        journaled = try await journal?.records() ?? JournalRecords()
    }

    func check(_ value: JSONValue, line: Int) throws(RowRejection) -> StructuredContentRow {
        try StructuredContentRowValidator.row(value, line: line, spec: spec)
    }

    func finish() async throws(ScreensPipeError) -> WriteSummary {
        summary.rejectsPath = try rejects.close()
        return summary
    }

    // MARK: - Rows

    func write(_ row: StructuredContentRow) async throws(ScreensPipeError) {
        if let first = seenKeys[row.key] {
            let what = row.externalReferenceCode.map { "externalReferenceCode \($0)" } ?? "key \(spec.key.joined(separator: "+"))"
            try await reject(line: row.line, input: row.inputText, truncated: false, reason: "the same web content (\(what)) as line \(first)")
            return
        }
        seenKeys[row.key] = row.line
        if let legacy = journaled.claimLegacy(row) { try await journal?.migrate(row, legacy) }
        let record = journaled[row.key]
        if let record, record.state != .pending, record.content == row.content {
            summary.skipped += 1
            await result(row, "unchanged", id: record.entryId, reason: "written by an earlier run (journal)")
            return
        }
        if row.deletes {
            try await delete(row, record: record)
            return
        }
        if dryRun {
            let request: HTTPRequest
            if let erc = row.externalReferenceCode {
                request = try transport.request("PUT", url: transport.url(externalReferenceCode: erc), body: row.body)
            } else {
                request = try transport.request("POST", url: transport.listURL, body: row.body)
            }
            await events.plan(request)
            summary.plannedRequests += 1
            // A PUT by external reference code creates or updates: only the portal knows which.
            if row.externalReferenceCode == nil { summary.plannedCreates += 1 } else { summary.plannedUpserts += 1 }
            await result(row, "planned", id: nil)
            return
        }
        if let erc = row.externalReferenceCode {
            // An article this journal deleted is created again, not updated.
            try await put(row, erc: erc, written: record.map { $0.state != .pending && $0.state != .deleted } ?? false)
        } else {
            try await post(row, undecided: record?.state == .pending)
        }
    }

    /// The idempotent upsert: sent until answered; a row left pending is sent again by the
    /// next run, which is safe for the same reason.
    private func put(_ row: StructuredContentRow, erc: String, written: Bool) async throws(ScreensPipeError) {
        try await journal?.record([(row: row, state: WriteJournal.State.pending, entryId: Int64?.none)])
        requestNumber += 1
        summary.batches += 1
        switch try await transport.put(erc, row.body) {
        case .stored(let stored):
            await publishResponse(row)
            // The answer does not say whether the code was new: an article this pipeline
            // wrote before, or one whose dates differ, was updated.
            let dateCreated = stored["dateCreated"]?.stringValue
            let updated = written || (dateCreated != nil && dateCreated != stored["dateModified"]?.stringValue)
            try await done(row, updated ? .updated : .created, id: stored["id"]?.int64Value)
        case .refused(let reason, let status):
            await publishResponse(row)
            // A refused update leaves the entry as the journal knew it; a refused create, nothing.
            try await journal?.refused(row, before: journaled[row.key])
            try await reject(line: row.line, input: row.inputText, truncated: false, reason: "the portal refused it (HTTP \(status)): \(reason)")
        case .ambiguous(let reason):
            throw ScreensPipeError.connectivity(
                "line \(row.line) (externalReferenceCode \(erc)) got no answer after \(transport.settings.retry.attempts) attempts (\(reason)); the journal keeps it pending, and a rerun sends the same PUT again")
        }
    }

    /// The create: one attempt at a time, each after a lookup when the last one went
    /// unanswered (or an earlier run's did).
    private func post(_ row: StructuredContentRow, undecided: Bool) async throws(ScreensPipeError) {
        if undecided, try await settle(row) { return }
        var attempt = 1
        while true {
            try await journal?.record([(row: row, state: WriteJournal.State.pending, entryId: Int64?.none)])
            requestNumber += 1
            summary.batches += 1
            switch try await transport.post(row.body) {
            case .stored(let stored):
                await publishResponse(row)
                try await done(row, .created, id: stored["id"]?.int64Value)
                return
            case .refused(let reason, let status):
                await publishResponse(row)
                try await journal?.forget([row])
                try await reject(line: row.line, input: row.inputText, truncated: false, reason: "the portal refused it (HTTP \(status)): \(reason)")
                return
            case .ambiguous(let reason):
                let settled = try await transport.settleUnanswered(line: row.line, reason: reason, attempt: &attempt, lookingUp: "it") {
                    () async throws(ScreensPipeError) -> Bool in try await settle(row)
                }
                if settled { return }
            }
        }
    }

    /// Removes the row's article: by its id, its external reference code, or its key (the
    /// journal's id for it, else the site's list).
    private func delete(_ row: StructuredContentRow, record: WriteJournal.Record?) async throws(ScreensPipeError) {
        let undecided = record?.state == .pending
        let known = record.flatMap { $0.state != .pending && $0.state != .deleted ? $0.entryId : nil }
        var id = row.id
        let url: String
        if let articleId = row.id {
            url = transport.articleURL(articleId)
        } else if let erc = row.externalReferenceCode {
            id = known
            url = transport.url(externalReferenceCode: erc)
        } else {
            if let known {
                id = known
            } else {
                id = try await transport.lookup(keyFields: spec.key)[row.key]?.id
            }
            guard let articleId = id else {
                if undecided {
                    // An earlier run's delete went unanswered, and the article is gone: it did it.
                    if dryRun { await result(row, "planned", id: nil, reason: "an earlier run's unanswered delete removed it") } else { try await done(row, .deleted, id: nil) }
                    return
                }
                try await reject(
                    line: row.line, input: row.inputText, truncated: false,
                    reason: "no web content of site \(spec.groupId) has this \(spec.key.joined(separator: "+")), so there is nothing to delete")
                return
            }
            url = transport.articleURL(articleId)
        }
        if dryRun {
            await events.plan(try transport.request("DELETE", url: url, body: nil))
            summary.plannedRequests += 1
            summary.plannedDeletes += 1
            await result(row, "planned", id: id)
            return
        }
        try await journal?.record([(row: row, state: WriteJournal.State.pending, entryId: Int64?.none)])
        let what = id.map { "delete of web content \($0)" } ?? "delete of web content \(row.externalReferenceCode ?? row.title)"
        let outcome = try await transport.change("DELETE", url: url, body: nil, undecided: undecided, line: row.line, describing: what) {
            requestNumber += 1
            summary.batches += 1
        }
        await publishResponse(row)
        switch outcome {
        case .done, .goneAfterUnanswered:
            try await done(row, .deleted, id: id)
        case .refused(let reason, let status):
            try await journal?.refused(row, before: record)
            try await reject(line: row.line, input: row.inputText, truncated: false, reason: "the portal refused it (HTTP \(status)): \(reason)")
        }
    }

    /// Looks the row up by key: found means an unanswered request created it.
    private func settle(_ row: StructuredContentRow) async throws(ScreensPipeError) -> Bool {
        guard let found = try await transport.lookup(keyFields: spec.key)[row.key] else { return false }
        try await done(row, .created, id: found.id)
        return true
    }

    private func done(_ row: StructuredContentRow, _ state: WriteJournal.State, id: Int64?) async throws(ScreensPipeError) {
        try await journal?.record([(row: row, state: state, entryId: id)])
        summary.count(state)
        journaled[row.key] = WriteJournal.Record(state: state, content: row.content, entryId: id)
        await result(row, state.rawValue, id: id)
    }

    func reject(line: Int, input: String?, truncated: Bool, reason: String) async throws(ScreensPipeError) {
        summary.rejected += 1
        try await events.reject(line: line, input: input, truncated: truncated, reason: reason)
    }

    private func result(_ row: StructuredContentRow, _ outcome: String, id: Int64?, reason: String? = nil) async {
        var details = JSONObject()
        if row.deletes { details["op"] = "delete" }
        if let id { details["id"] = .int(id) }
        if let erc = row.externalReferenceCode { details["externalReferenceCode"] = .string(erc) }
        if !row.deletes || (row.id == nil && row.externalReferenceCode == nil) { details["title"] = .string(row.title) }
        if let reason { details["reason"] = .string(reason) }
        await events.result(line: row.line, outcome: outcome, details: details)
    }

    private func publishResponse(_ row: StructuredContentRow) async {
        await bus.publish(
            .response(ListResponse(pipeline: pipeline, page: requestNumber - 1, startRow: row.line, endRow: row.line + 1, rowCount: nil, rows: 1, origin: .remote)))
    }
}
