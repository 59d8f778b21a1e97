import ScreensBus

/// One dynamic data list record: the `fieldsMap` of `add-record`.
struct DDLRecordRow: JournaledRow, Hashable {
    var line: Int
    var displayIndex: Int64
    /// The field values, names sorted: the same record always reads the same.
    var fields: JSONObject
    var key: String
    /// The record a row names with a top-level `recordId`: the row updates it
    /// (`update-record`), as DDL Form Screenlet submits a form it loaded; nil adds a record.
    var recordId: Int64? = nil
    /// The row removes the record (`{"op":"delete","recordId":N}`, or by the key fields).
    var deletes = false
    var content: String { JSONValue.object(fields).jsonString }
}

/// `service: ddl-record`: `/ddl.ddlrecord/add-record(groupId, recordSetId, displayIndex,
/// fieldsMap, serviceContext)` and `update-record(recordId, displayIndex, fieldsMap,
/// mergeFields, serviceContext)`, the `fieldsMap` overloads of the Mobile SDK's
/// `DDLRecordService`; Liferay 7.0 serves both (7.1 and later add records from
/// `DDMFormValues` only, which the Mobile SDK does not carry). The record set's
/// `/screens.screensddlrecord/get-ddl-records` is the lookup.
///
/// A row's fields are its `modelValues` (a row read from a record list copies as it is),
/// else its `fields`, else the row itself; each value a text, number or boolean.
///
/// A row with a top-level `recordId` updates that record (add or update by `recordId`, as
/// `Liferay70DDLFormSubmitConnector` does: `update-record` with `mergeFields` false); the
/// journal knows it by that id, so a rerun sends nothing and changed fields are one more
/// update. A `recordId` inside `modelAttributes` (a row copied from a record list) does
/// not: the copy adds a record, never changes one of the same id on another portal.
///
/// `{"op":"delete","recordId":N}` (or `"op":"delete"` with the key fields) removes the
/// record with `delete-record(recordId)`, the Mobile SDK's `DDLRecordService.deleteRecord`
/// (every 7.x), sent alone, exactly once: a delete whose answer was lost is looked up.
struct DDLRecordWriteModel: JSONWSWriteModel {
    let spec: LiferaySinkSpec
    let recordSetId: Int64
    /// Whether a document field (`{"file": ...}`) is taken as it is: the outbox keeps the
    /// row, its documents already copied (``DDLRecordDocumentKeeper``); the sync uploads
    /// them before the record. Otherwise only ``DDLRecordDocumentWriter`` sends documents.
    var keepsDocuments = false
    /// The most fields a record may have: the bound keeps a hostile row's request small.
    static let maximumFields = 500

    var serviceName: String { "ddl-record" }
    var idField: String { "recordId" }
    var updatesNeedLookup: Bool { false }

    func row(_ value: JSONValue, line: Int) throws(RowRejection) -> DDLRecordRow {
        guard case .object(let object) = value else {
            throw RowRejection(message: "a row is a JSON object of field values, found \(value.typeName)")
        }
        // Only `delete` is read: a record may have a field of its own named `op`.
        if value["op"]?.stringValue == WriteRowOperation.delete.rawValue { return try deleteRow(value, object, line: line) }
        let nested = value["modelValues"]?.objectValue ?? value["fields"]?.objectValue
        // A flat row is the record's fields, but for its displayIndex.
        let source = nested ?? object
        guard !source.isEmpty else { throw RowRejection(message: "a record needs at least one field") }
        guard source.count <= Self.maximumFields else {
            throw RowRejection(message: "the record has \(source.count) fields, more than \(Self.maximumFields)")
        }
        var fields = JSONObject(minimumCapacity: source.count)
        let recordId = try WriteRowParsing.positiveId(value, "recordId", naming: "record id")
        for name in source.keys.sorted() where nested != nil || (name != "displayIndex" && name != "recordId") {
            guard let field = source[name] else { continue }
            switch field {
            case .string, .int, .double, .bool: fields.appendUnchecked(key: name, value: field)
            case .null: continue
            case .object(let object) where object["file"] != nil:
                // DDLRecordDocumentWriter uploads it first, or the outbox keeps it for the sync to.
                guard keepsDocuments else {
                    throw RowRejection(message: "field '\(name.prefix(100))' is a document to upload: it is uploaded before its record, never written as a field's value")
                }
                fields.appendUnchecked(key: name, value: field)
            default:
                throw RowRejection(
                    message: "field '\(name.prefix(100))' must be text, a number, a boolean or a document to upload ({\"file\": ..., \"mimeType\": ...}), found \(field.typeName)")
            }
        }
        let displayIndex = value["modelAttributes"]?["displayIndex"]?.int64Value ?? value["displayIndex"]?.int64Value ?? 0
        if let recordId {
            // The record is named: its id is the key, whatever fields the row changes.
            guard !fields.isEmpty else { throw RowRejection(message: "a record needs at least one field") }
            return DDLRecordRow(line: line, displayIndex: displayIndex, fields: fields, key: WriteKey.encode(["recordId", String(recordId)]), recordId: recordId)
        }
        for name in spec.key where fields[name] == nil {
            throw RowRejection(message: "missing '\(name)', a field of the key")
        }
        let key = spec.key.isEmpty ? JSONValue.object(fields).jsonString : spec.key.map { fields[$0]?.jsonString ?? "" }.joined(separator: "\u{1F}")
        return DDLRecordRow(line: line, displayIndex: displayIndex, fields: fields, key: key)
    }

    /// A row that deletes: its record's id, else the key fields that find it.
    private func deleteRow(_ value: JSONValue, _ object: JSONObject, line: Int) throws(RowRejection) -> DDLRecordRow {
        if let recordId = try WriteRowParsing.positiveId(value, "recordId", naming: "record id") {
            return DDLRecordRow(line: line, displayIndex: 0, fields: [:], key: WriteKey.encode(["recordId", String(recordId)]), recordId: recordId, deletes: true)
        }
        guard !spec.key.isEmpty else {
            throw RowRejection(message: "a delete names its record by 'recordId' (the sink has no 'key' fields to find it by)")
        }
        var fields = JSONObject(minimumCapacity: spec.key.count)
        for name in spec.key {
            guard let field = object[name], !field.isNull else { throw RowRejection(message: "a delete names its record by 'recordId' or by '\(name)', a field of the key") }
            switch field {
            case .string, .int, .double, .bool: fields.appendUnchecked(key: name, value: field)
            default: throw RowRejection(message: "field '\(name.prefix(100))' must be text, a number or a boolean, found \(field.typeName)")
            }
        }
        let key = spec.key.map { fields[$0]?.jsonString ?? "" }.joined(separator: "\u{1F}")
        return DDLRecordRow(line: line, displayIndex: 0, fields: fields, key: key, deletes: true)
    }

    /// A delete goes in a request of its own: the portal's NoSuchRecordException is then its
    /// own, never read as "done" by a lookup.
    func sendsAlone(_ row: DDLRecordRow) -> Bool { row.deletes }

    func removal(_ row: DDLRecordRow) -> EntryRemoval? {
        row.deletes ? EntryRemoval(service: "/ddl.ddlrecord/delete-record", idParameter: "recordId") : nil
    }

    func outcome(ofFirstCommand row: DDLRecordRow) -> WriteJournal.State {
        row.recordId == nil ? .created : .updated
    }

    /// `add-record`, or for a row naming its record, `update-record` of that record.
    func addCommand(_ row: DDLRecordRow) -> JSONWSCommand {
        if let recordId = row.recordId { return updateCommand(row, FoundEntry(id: recordId, content: row.content)) }
        var params = JSONObject(minimumCapacity: 5)
        params.appendUnchecked(key: "groupId", value: .int(spec.groupId))
        params.appendUnchecked(key: "recordSetId", value: .int(recordSetId))
        params.appendUnchecked(key: "displayIndex", value: .int(row.displayIndex))
        params.appendUnchecked(key: "fieldsMap", value: .object(row.fields))
        return ("/ddl.ddlrecord/add-record", params)
    }

    func updateCommand(_ row: DDLRecordRow, _ found: FoundEntry) -> JSONWSCommand {
        var params = JSONObject(minimumCapacity: 5)
        params.appendUnchecked(key: "recordId", value: .int(found.id))
        params.appendUnchecked(key: "displayIndex", value: .int(row.displayIndex))
        params.appendUnchecked(key: "fieldsMap", value: .object(row.fields))
        // The row holds every field: a field it lacks is cleared, not kept.
        params.appendUnchecked(key: "mergeFields", value: .bool(false))
        return ("/ddl.ddlrecord/update-record", params)
    }

    func id(ofResult result: JSONValue) -> Int64? { result["recordId"]?.int64Value }

    func lookup(_ rows: [DDLRecordRow], transport: JSONWSBookmarkTransport) async throws(ScreensPipeError) -> [String: FoundEntry]? {
        let params: JSONObject = ["ddlRecordSetId": .int(recordSetId), "locale": "en_US", "start": .int(-1), "end": .int(-1), "obc": .null]
        let records: [JSONValue]
        do throws(ScreensPipeError) {
            records = try await transport.read(("/screens.screensddlrecord/get-ddl-records", params), what: "the records of record set \(recordSetId)").arrayValue ?? []
        } catch where error.isRefusedRead {
            return [:]
        }
        var found: [String: FoundEntry] = [:]
        for record in records {
            guard let recordId = record["modelAttributes"]?["recordId"]?.int64Value else { continue }
            guard let stored = try? row(record, line: 0) else { continue }
            if found[stored.key] == nil { found[stored.key] = FoundEntry(id: recordId, content: stored.content) }
            // Rows that name their record by id (an update or delete by `recordId`) find it by that.
            found[WriteKey.encode(["recordId", String(recordId)])] = FoundEntry(id: recordId, content: stored.content)
        }
        return found
    }

    func details(_ row: DDLRecordRow) -> JSONObject {
        var details: JSONObject = ["recordSetId": .int(recordSetId)]
        if let recordId = row.recordId { details["recordId"] = .int(recordId) }
        if row.deletes { details["op"] = "delete" }
        for name in spec.key { details[name] = row.fields[name] ?? .null }
        return details
    }

    func inputText(_ row: DDLRecordRow) -> String {
        guard row.deletes else { return row.content }
        var text: JSONObject = ["op": "delete"]
        if let recordId = row.recordId { text["recordId"] = .int(recordId) }
        for (name, value) in row.fields { text[name] = value }
        return JSONValue.object(text).jsonString
    }
}
