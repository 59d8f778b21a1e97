import ScreensBus

/// A document field's value once its file is in the document library: the JSON text DDL
/// Form Screenlet puts in `fieldsMap` after its upload (`DDLFieldDocument`'s current value,
/// `{"groupId":G,"uuid":"U","version":"V"}`), built from the stored file entry.
enum DDLDocumentValue {
    /// The value naming `entry`, or nil when the entry lacks its `uuid`, `groupId` or
    /// `version` (the portal's answer is then not a file entry).
    static func text(naming entry: JSONValue) -> String? {
        guard let uuid = entry["uuid"]?.stringValue, !uuid.isEmpty, let groupId = entry["groupId"]?.int64Value,
            let version = entry["version"]?.stringValue
        else { return nil }
        let value: JSONObject = ["groupId": .int(groupId), "uuid": .string(uuid), "version": .string(version)]
        return JSONValue.object(value).jsonString
    }

    /// What a dry run shows in place of the value: only the upload tells the uuid.
    static func placeholder(_ row: ImageRow) -> String {
        "<the uuid, groupId and version of the upload of \(row.file) as '\(row.title)'>"
    }
}

/// A writer of DDL records that handles the rows with documents itself and hands every
/// other row (deletes included) to its `records` writer: one rule for which rows those are.
protocol DDLDocumentRowsWriter: RowWriter {
    associatedtype Records: RowWriter
    var records: Records { get }
    /// Handles a row with at least one document field.
    func writeDocuments(_ value: JSONValue, line: Int, input: String, truncated: Bool) async throws(ScreensPipeError)
}

extension DDLDocumentRowsWriter {
    func take(_ line: WriteInputLine) async throws(ScreensPipeError) {
        guard case .success(let value) = Result(catching: { () throws(RowRejection) in try WriteRowParsing.object(line) }),
            DDLRecordDocumentWriter.hasDocuments(value)
        else { return try await records.take(line) }
        try await writeDocuments(value, line: line.number, input: String(decoding: line.bytes, as: UTF8.self), truncated: line.truncated)
    }

    func take(row value: JSONValue, number: Int) async throws(ScreensPipeError) {
        guard DDLRecordDocumentWriter.hasDocuments(value) else { return try await records.take(row: value, number: number) }
        try await writeDocuments(value, line: number, input: value.jsonString, truncated: false)
    }
}

/// The journal entry that keeps a document's value: keyed by the upload's key and content,
/// so a rerun (or a run killed between the upload and its record) finds the value without
/// uploading, or asking the portal, again.
struct DDLDocumentValueRow: JournaledRow {
    var line: Int
    var upload: ImageRow
    var value: String

    static func key(_ upload: ImageRow) -> String { WriteKey.encode(["ddl-document", upload.key, upload.content]) }

    /// What an earlier write journaled for `upload` (its value is the record's `content`),
    /// when it finished.
    static func known(_ upload: ImageRow, in journaled: JournalRecords) -> WriteJournal.Record? {
        guard let record = journaled[key(upload)], record.state != .pending else { return nil }
        return record
    }
    var key: String { Self.key(upload) }
    var content: String { value }
}

/// `service: ddl-record` with document fields: a field whose value is an object with a
/// `file` (`{"file": "photos/ana.png", "mimeType": "image/png", "title"?, "description"?}`)
/// is a document uploaded first, as DDL Form Screenlet's `DDLFormUploadDocumentInteractor`
/// uploads one before the form is submitted; the record then holds the document's value
/// (``DDLDocumentValue``). Everything else is ``DDLRecordWriteModel``'s, through
/// ``JSONWSWriter``.
///
/// Each document goes to the sink's `group-id` (the screenlet's `repositoryId`) and
/// `folder-id` (its `folderId`; 0, the site's root, when the sink names none), with the
/// object's `title`, else the file's name (a folder holds one entry per title: the title is
/// what makes an upload exactly once, where the screenlet names it `filePrefix` + a random
/// UUID). The file is checked as an image row's is (``ImageRowValidator``) and uploaded
/// through ``DocumentUploader``, journaled as an image upload is; its value is journaled
/// too, so a rerun sends nothing for it. A refused upload rejects its record, which is not
/// written.
final class DDLRecordDocumentWriter: DDLDocumentRowsWriter {
    /// The keys a document object may have.
    static let documentKeys: Set<String> = ["file", "mimeType", "title", "description"]

    let records: JSONWSWriter<DDLRecordWriteModel>
    private let spec: LiferaySinkSpec
    private let validator: ImageRowValidator
    /// The transport, journal, bus and pipeline every upload goes through.
    private let uploader: DocumentUploader
    private let events: WriteEvents
    private let dryRun: Bool
    private var journaled = JournalRecords()
    private var requestNumber = 0
    /// The rows this writer rejects and the uploads it sends; the records' own are `records`'.
    private var own = WriteSummary()

    var summary: WriteSummary {
        var total = records.summary
        total.rejected += own.rejected
        total.batches += own.batches
        total.plannedRequests += own.plannedRequests
        return total
    }

    init(
        spec: LiferaySinkSpec, records: JSONWSWriter<DDLRecordWriteModel>, pipeline: String, transport: ImageUploadTransport,
        filesDirectory: String, keptRows: Bool = false, journal: WriteJournal?, bus: EventBus, rejects: RejectsFile, dryRun: Bool
    ) async throws(ScreensPipeError) {
        self.spec = spec
        self.records = records
        validator = try ImageRowValidator(spec: spec, filesDirectory: filesDirectory, keptRows: keptRows)
        uploader = DocumentUploader(transport: transport, journal: journal, bus: bus, pipeline: pipeline)
        events = WriteEvents(bus: bus, pipeline: pipeline, rejects: rejects)
        self.dryRun = dryRun
        journaled = try await journal?.records() ?? JournalRecords()
    }

    func finish() async throws(ScreensPipeError) -> WriteSummary {
        _ = try await records.finish()
        return summary
    }

    // MARK: - Rows

    /// Where a row keeps its fields: `modelValues`, `fields`, else the row itself (as
    /// ``DDLRecordWriteModel/row(_:line:)`` reads them).
    static func fieldsPath(_ value: JSONValue) -> String? {
        if value["modelValues"]?.objectValue != nil { return "modelValues" }
        if value["fields"]?.objectValue != nil { return "fields" }
        return nil
    }

    static func fields(_ value: JSONValue) -> JSONObject {
        fieldsPath(value).flatMap { value[$0]?.objectValue } ?? value.objectValue ?? [:]
    }

    /// `value` with `fields` in place of its own (where ``fields(_:)`` found them).
    static func row(_ value: JSONValue, with fields: JSONObject) -> JSONValue {
        guard let path = fieldsPath(value), var row = value.objectValue else { return .object(fields) }
        row[path] = .object(fields)
        return .object(row)
    }

    /// Whether a row (not a delete) has a field whose value is a document object.
    static func hasDocuments(_ value: JSONValue) -> Bool {
        guard value["op"]?.stringValue != WriteRowOperation.delete.rawValue else { return false }
        return fields(value).contains { $0.value["file"] != nil }
    }

    /// Uploads the row's documents (or finds them in the journal), then gives the record
    /// with their values to `records`; the first refused document rejects the record.
    func writeDocuments(_ value: JSONValue, line: Int, input: String, truncated: Bool) async throws(ScreensPipeError) {
        var fields = Self.fields(value)
        var documents: [(field: String, row: ImageRow)] = []
        for (name, field) in fields where field["file"] != nil {
            switch Result(catching: { () throws(RowRejection) in try Self.document(field, line: line, spec: spec, validator: validator) }) {
            case .success(let row): documents.append((name, row))
            case .failure(let rejection):
                return try await reject(line: line, input: input, truncated: truncated, reason: "field '\(name.prefix(100))': \(rejection.message)")
            }
        }
        for (name, row) in documents {
            switch try await resolve(row, field: name) {
            case .success(let text): fields[name] = .string(text)
            case .failure(let rejection):
                return try await reject(line: line, input: input, truncated: truncated, reason: "field '\(name.prefix(100))' (\(row.file)): \(rejection.message)")
            }
        }
        try await records.take(row: Self.row(value, with: fields), number: line)
    }

    /// A document object, checked as an image row is, bound for the sink's folder. A kept
    /// one (`validator.keptRows`) also names the content it was kept with.
    static func document(_ field: JSONValue, line: Int, spec: LiferaySinkSpec, validator: ImageRowValidator) throws(RowRejection) -> ImageRow {
        guard case .object(let object) = field else { throw RowRejection(message: "a document is an object") }
        if let unknown = object.keys.sorted().first(where: { !Self.documentKeys.contains($0) && !(validator.keptRows && $0 == "keptContent") }) {
            throw RowRejection(
                message: "a document object has \(Self.documentKeys.sorted().joined(separator: ", ")); found '\(unknown.prefix(100))'")
        }
        var upload = object
        upload["folderId"] = .int(spec.folderId ?? 0)
        return try validator.row(.object(upload), line: line)
    }

    /// The document's value: from the journal, else by uploading it (a dry run plans the
    /// upload and answers a placeholder).
    private func resolve(_ row: ImageRow, field: String) async throws(ScreensPipeError) -> Result<String, RowRejection> {
        if let known = DDLDocumentValueRow.known(row, in: journaled) {
            await publish(row, field: field, outcome: "unchanged", id: known.entryId)
            return .success(known.content)
        }
        let record = journaled[row.key]
        if let record, record.state != .pending, record.content != row.content {
            // A folder holds one entry per title; an upload never replaces one.
            return .failure(
                RowRejection(
                    message:
                        "an earlier run uploaded '\(row.title)' as file entry \(record.entryId.map(String.init) ?? "?") (journal), and this document's file or values differ; an upload does not replace an entry: give it another title"
                ))
        }
        if dryRun {
            own.plannedRequests += 1
            try await uploader.plan(row)
            await publish(row, field: field, outcome: "planned", id: nil)
            return .success(DDLDocumentValue.placeholder(row))
        }
        // A record without the value is an upload whose outcome this run does not know.
        let outcome = try await uploader.upload(row, undecided: record != nil)
        requestNumber += outcome.requests
        own.batches += outcome.requests
        if outcome.answered {
            await uploader.bus.publish(
                .response(ListResponse(pipeline: uploader.pipeline, page: requestNumber - 1, startRow: row.line, endRow: row.line + 1, rowCount: nil, rows: 1, origin: .remote)))
        }
        switch outcome.result {
        case .refused(let reason):
            return .failure(RowRejection(message: reason))
        case .stored(let entry):
            let id = uploader.transport.entryId(entry)
            guard let text = DDLDocumentValue.text(naming: entry) else {
                // Kept pending: a rerun looks the entry up rather than uploading it again.
                return .failure(RowRejection(message: "the portal stored file entry \(id.map(String.init) ?? "?") but its answer names no uuid, groupId and version"))
            }
            // The value first: a run killed before the upload's own record still finds it.
            let value = DDLDocumentValueRow(line: row.line, upload: row, value: text)
            try await uploader.journal?.record([(row: value, state: WriteJournal.State.created, entryId: id)])
            try await uploader.journal?.record([(row: row, state: WriteJournal.State.created, entryId: id)])
            journaled[value.key] = WriteJournal.Record(state: .created, content: text, entryId: id)
            journaled[row.key] = WriteJournal.Record(state: .created, content: row.content, entryId: id)
            await publish(row, field: field, outcome: "uploaded", id: id)
            return .success(text)
        }
    }

    private func reject(line: Int, input: String, truncated: Bool, reason: String) async throws(ScreensPipeError) {
        own.rejected += 1
        try await events.reject(line: line, input: input, truncated: truncated, reason: reason)
    }

    /// A `document` event: where a record's document went (`uploaded`, `unchanged` when an
    /// earlier run uploaded it, `planned` in a dry run).
    private func publish(_ row: ImageRow, field: String, outcome: String, id: Int64?) async {
        var payload: JSONObject = [
            "line": .int(Int64(row.line)), "field": .string(field), "outcome": .string(outcome), "file": .string(row.file),
            "title": .string(row.title), "folderId": .int(row.folderId),
        ]
        if let id { payload["fileEntryId"] = .int(id) }
        await uploader.bus.publish(custom: "document", pipeline: uploader.pipeline, payload: .object(payload))
    }
}
