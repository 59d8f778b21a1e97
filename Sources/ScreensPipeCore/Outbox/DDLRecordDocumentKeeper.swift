import ScreensBus

/// Keeps DDL records with document fields in the outbox: each document's file is copied
/// into the ``UploadSpool`` and its field names the copy, then the record is kept as any
/// record is (``OutboxWriter``). The sync's ``DDLRecordDocumentWriter`` uploads the copies
/// before the record, as DDL Form Screenlet uploads a document before it submits the form.
///
/// A kept document carries the content of the document as first given, so the journal
/// records its upload (and value) as made from the original. A document the journal
/// already has a value for is not copied: the record is kept (or found `unchanged`) with
/// that value, as the uploading writer would write it.
final class DDLRecordDocumentKeeper: DDLDocumentRowsWriter {
    let records: OutboxWriter<DDLRecordWriteModel>
    private let spec: LiferaySinkSpec
    private let validator: ImageRowValidator
    /// nil for a PostgreSQL outbox, which keeps no files: a record with documents is
    /// rejected, one without goes on as usual.
    private let spool: UploadSpool?
    private let events: WriteEvents
    private let journaled: JournalRecords
    private var rejected = 0

    var keptKeys: [String] { records.keptKeys }

    var summary: WriteSummary {
        var total = records.summary
        total.rejected += rejected
        return total
    }

    init(
        spec: LiferaySinkSpec, records: OutboxWriter<DDLRecordWriteModel>, filesDirectory: String, spool: UploadSpool?, journal: WriteJournal,
        events: WriteEvents
    ) async throws(ScreensPipeError) {
        self.spec = spec
        self.records = records
        validator = try ImageRowValidator(spec: spec, filesDirectory: filesDirectory)
        self.spool = spool
        self.events = events
        journaled = try await journal.records()
    }

    func finish() async throws(ScreensPipeError) -> WriteSummary {
        _ = try await records.finish()
        return summary
    }

    /// Checks the row's documents, copies their files, and keeps the record naming the copies.
    func writeDocuments(_ value: JSONValue, line: Int, input: String, truncated: Bool) async throws(ScreensPipeError) {
        var fields = DDLRecordDocumentWriter.fields(value)
        var documents: [(field: String, row: ImageRow)] = []
        for (name, field) in fields where field["file"] != nil {
            switch Result(catching: { () throws(RowRejection) in
                try DDLRecordDocumentWriter.document(field, line: line, spec: spec, validator: validator)
            }) {
            case .success(let row): documents.append((name, row))
            case .failure(let rejection):
                return try await reject(line, input, truncated, "field '\(name.prefix(100))': \(rejection.message)")
            }
        }
        // Documents an earlier write uploaded go in as their journaled values.
        documents.removeAll { name, row in
            guard let known = DDLDocumentValueRow.known(row, in: journaled) else { return false }
            fields[name] = .string(known.content)
            return true
        }
        if let first = documents.first {
            guard let spool else {
                return try await reject(
                    line, input, truncated,
                    "field '\(first.field.prefix(100))' is a document to upload, and a PostgreSQL outbox keeps no files (its replicas share no disk): write records with documents with 'write-policy: remote-only'"
                )
            }
            for (name, row) in documents {
                var kept: JSONObject = [
                    "file": .string(try spool.keep(row.path)), "mimeType": .string(row.mimeType), "title": .string(row.title),
                    "keptContent": .string(row.content),
                ]
                if !row.description.isEmpty { kept["description"] = .string(row.description) }
                fields[name] = .object(kept)
            }
        }
        try await records.take(row: DDLRecordDocumentWriter.row(value, with: fields), number: line)
    }

    private func reject(_ line: Int, _ input: String, _ truncated: Bool, _ reason: String) async throws(ScreensPipeError) {
        rejected += 1
        try await events.reject(line: line, input: input, truncated: truncated, reason: reason)
    }
}
