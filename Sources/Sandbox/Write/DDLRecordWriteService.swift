import ScreensJSON
import Synchronization

/// `/ddl.ddlrecord/add-record` and `update-record` over JSON-WS, with the `fieldsMap`
/// overloads of the Mobile SDK's `DDLRecordService` (v7; `update-record` also v71, v72):
///
/// - `add-record(groupId, recordSetId, displayIndex, fieldsMap, serviceContext)`, 7.0;
/// - `update-record(recordId, displayIndex, fieldsMap, mergeFields, serviceContext)`, 7.0-7.2;
/// - `delete-record(recordId)`, every 7.x (`DDLRecordService.deleteRecord`, void).
///
/// The checks follow DDLRecordLocalServiceImpl: the record set (NoSuchRecordSetException)
/// and its site, then each field name against the record set's fields
/// (StorageFieldNameException; the sandbox knows a set's fields from its stored records and
/// its `documentFields`), and a document field's value (DDLDocumentFields).
/// Written records are in the next `get-ddl-records` page.
enum DDLRecordWriteService {
    static let actions: [String: JSONWSServices.Action] = [
        "/ddl.ddlrecord/add-record": { portal, params, account in
            let groupId = try params.long("groupId")
            let recordSetId = try params.long("recordSetId")
            guard let set = portal.data.recordSets[recordSetId] else { throw PortalError.noSuchRecordSet(recordSetId) }
            try portal.checkGroup(set.groupId, for: account)
            guard set.groupId == groupId else { throw PortalError.noSuchRecordSet(recordSetId) }
            let fields = try checkedFields(portal, params, recordSetId: recordSetId)
            let displayIndex = try params.long("displayIndex", default: 0)
            return portal.writtenRecords.add(
                recordSetId: recordSetId, groupId: groupId, displayIndex: displayIndex, fields: fields, account: account,
                now: StructuredContentWrites.currentMilliseconds())
        },
        "/ddl.ddlrecord/update-record": { portal, params, account in
            let recordId = try params.long("recordId")
            guard let found = portal.record(recordId) else { throw PortalError.noSuchRecord(recordId) }
            let recordSetId = found.recordSetId
            let existing = found.record
            guard let set = portal.data.recordSets[recordSetId] else { throw PortalError.noSuchRecordSet(recordSetId) }
            try portal.checkGroup(set.groupId, for: account)
            var fields = try checkedFields(portal, params, recordSetId: recordSetId)
            if try params.bool("mergeFields") == true, case .object(let old)? = existing["modelValues"] {
                var merged = old
                for (name, value) in fields { merged[name] = value }
                fields = merged
            }
            let displayIndex = try params.long("displayIndex", default: existing["modelAttributes"]?["displayIndex"]?.int64Value ?? 0)
            return portal.writtenRecords.replace(
                existing, fields: fields, displayIndex: displayIndex, account: account, now: StructuredContentWrites.currentMilliseconds())
        },
        // DDLRecordServiceImpl.deleteRecord: the DELETE permission check reads the record
        // first (NoSuchRecordException for an unknown id), then the record is gone; answers nothing.
        "/ddl.ddlrecord/delete-record": { portal, params, account in
            let recordId = try params.long("recordId")
            guard let found = portal.record(recordId), let set = portal.data.recordSets[found.recordSetId] else {
                throw PortalError.noSuchRecord(recordId)
            }
            try portal.checkGroup(set.groupId, for: account)
            portal.writtenRecords.delete(recordId)
            return .null
        },
    ]

    /// The `Map<String, Serializable>` parameter: a JSON object (or JSON text holding one)
    /// of scalars, each a field of the record set.
    private static func checkedFields(_ portal: Portal, _ params: ServiceParameters, recordSetId: Int64) throws -> JSONObject {
        var fields = JSONObject()
        if let object = params.object("fieldsMap") {
            for name in object.fields.values.keys.sorted() { fields[name] = object.fields.values[name] }
        } else if let text = try params.string("fieldsMap"), case .object(let parsed)? = try? JSONValue(parsing: Array(text.utf8)) {
            fields = parsed
        } else {
            throw PortalError.missingParameter("fieldsMap")
        }
        let documentFields = portal.data.recordSets[recordSetId]?.documentFields ?? []
        let known = Set((portal.data.records[recordSetId] ?? []).flatMap { $0["modelValues"]?.objectValue?.keys ?? [] }).union(documentFields)
        for (name, value) in fields {
            if !known.isEmpty, !known.contains(name) { throw PortalError.storageFieldName(name) }
            switch value {
            case .string, .int, .double, .bool, .null: break
            default: throw PortalError.typeConversion("fieldsMap", value, to: "java.io.Serializable")
            }
            if documentFields.contains(name) { try DDLDocumentFields.check(value, field: name, portal: portal) }
        }
        return fields
    }
}

/// DDL records that writes created or changed while the sandbox runs, over the data
/// directory's, in the `{modelAttributes, modelValues}` shape `get-ddl-records` serves.
final class WrittenRecords: Sendable {
    private struct Table: Sendable {
        var added: [Int64: [JSONValue]] = [:]
        /// Changed versions by recordId (of stored or written records).
        var replaced: [Int64: JSONValue] = [:]
        /// Deleted records (stored or written) by recordId.
        var deleted: Set<Int64> = []
        var nextRecordId: Int64 = WrittenRecords.firstWrittenRecordId
        var lastModified: Int64 = 0
    }

    static let firstWrittenRecordId: Int64 = 7_000_000
    private let table = Mutex(Table())

    init() {}

    /// `stored` with the written changes applied, then the new records.
    func merged(recordSetId: Int64, _ stored: [JSONValue]) -> [JSONValue] {
        table.withLock { table in
            var all = stored + (table.added[recordSetId] ?? [])
            if !table.deleted.isEmpty {
                all.removeAll { record in record["modelAttributes"]?["recordId"]?.int64Value.map(table.deleted.contains) ?? false }
            }
            guard !table.replaced.isEmpty else { return all }
            return all.map { record in record["modelAttributes"]?["recordId"]?.int64Value.flatMap { table.replaced[$0] } ?? record }
        }
    }

    /// Stores a new record; answers its attributes, as `add-record` returns the model.
    func add(recordSetId: Int64, groupId: Int64, displayIndex: Int64, fields: JSONObject, account: Account, now: Int64) -> JSONValue {
        table.withLock { table in
            let recordId = table.nextRecordId
            table.nextRecordId += 1
            table.lastModified = max(now, table.lastModified + 1)
            let attributes: JSONObject = [
                "uuid": .string(WrittenUUID.make(recordId, kind: "b000")), "recordId": .int(recordId), "groupId": .int(groupId),
                "companyId": .int(20099), "userId": .int(account.userId), "userName": .string(account.emailAddress),
                "versionUserId": .int(account.userId), "versionUserName": .string(account.emailAddress),
                "createDate": .int(table.lastModified), "modifiedDate": .int(table.lastModified), "DDMStorageId": .int(recordId + 1000),
                "recordSetId": .int(recordSetId), "version": "1.0", "displayIndex": .int(displayIndex), "lastPublishDate": .null,
            ]
            table.added[recordSetId, default: []].append(["modelAttributes": .object(attributes), "modelValues": .object(fields)])
            return .object(attributes)
        }
    }

    /// Removes the record with `recordId` (stored or written) from every later read.
    func delete(_ recordId: Int64) {
        table.withLock { table in
            table.deleted.insert(recordId)
            table.replaced[recordId] = nil
        }
    }

    /// Stores a new version of `existing`; answers its attributes.
    func replace(_ existing: JSONValue, fields: JSONObject, displayIndex: Int64, account: Account, now: Int64) -> JSONValue {
        table.withLock { table in
            table.lastModified = max(now, table.lastModified + 1)
            var attributes = existing["modelAttributes"]?.objectValue ?? [:]
            attributes["modifiedDate"] = .int(table.lastModified)
            attributes["displayIndex"] = .int(displayIndex)
            attributes["versionUserId"] = .int(account.userId)
            attributes["versionUserName"] = .string(account.emailAddress)
            let version = Double(attributes["version"]?.stringValue ?? "1.0") ?? 1.0
            attributes["version"] = .string(String(((version + 0.1) * 10).rounded() / 10))
            let record: JSONValue = ["modelAttributes": .object(attributes), "modelValues": .object(fields)]
            if let recordId = attributes["recordId"]?.int64Value { table.replaced[recordId] = record }
            return .object(attributes)
        }
    }
}

extension Portal {
    /// The record with `recordId` as it stands now, and its record set.
    func record(_ recordId: Int64) -> (recordSetId: Int64, record: JSONValue)? {
        for recordSetId in data.recordSets.keys {
            let records = writtenRecords.merged(recordSetId: recordSetId, data.records[recordSetId] ?? [])
            if let record = records.first(where: { $0["modelAttributes"]?["recordId"]?.int64Value == recordId }) {
                return (recordSetId, record)
            }
        }
        return nil
    }
}

extension PortalError {
    static func noSuchRecord(_ recordId: Int64) -> PortalError {
        PortalError(
            status: 404, type: "com.liferay.dynamic.data.lists.exception.NoSuchRecordException",
            message: "No DDLRecord exists with the primary key \(recordId)")
    }

    /// A `fieldsMap` name that is not a field of the record set's structure.
    static func storageFieldName(_ name: String) -> PortalError {
        PortalError(
            status: 500, type: "com.liferay.dynamic.data.mapping.exception.StorageFieldNameException",
            message: "No field named \(name)")
    }
}
