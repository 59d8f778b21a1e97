import ScreensBus

/// One web content row, checked against headless-delivery's `StructuredContent` before
/// any request: `title` and `contentStructureId` are required (the schema's `required`),
/// `contentFields` is `[{name, contentFieldValue: {data}}]`, `data` sent as a string as the
/// OpenAPI declares it (a number or boolean as its JSON text).
///
/// Only the fields a client may write are sent, so a row read from a structured-contents
/// list (with `id`, `dateCreated`, `creator`, ...) copies as it is.
struct StructuredContentRow: JournaledRow, Hashable {
    var line: Int
    /// The row's `externalReferenceCode`: written with an idempotent PUT; nil posts.
    var externalReferenceCode: String?
    var title: String
    var friendlyUrlPath: String?
    /// The request body: the writable fields, in a fixed order.
    var body: JSONObject
    var key: String
    /// The key as journals of earlier versions wrote it.
    var legacyKey: String
    /// The row removes its article (`"op":"delete"`): by `id`, else by its external
    /// reference code, else by the key fields (found through the journal or a lookup).
    var deletes = false
    /// The article a delete names by its `id` (headless `id`, the `resourcePrimKey`).
    var id: Int64?

    /// The body as text: what the journal compares on a rerun; "deleted" for a delete.
    var content: String { deletes ? "deleted" : JSONValue.object(body).jsonString }

    var inputText: String {
        guard deletes else { return JSONValue.object(body).jsonString }
        var text: JSONObject = ["op": "delete"]
        if let id { text["id"] = .int(id) }
        if let externalReferenceCode { text["externalReferenceCode"] = .string(externalReferenceCode) }
        if id == nil, externalReferenceCode == nil {
            text["title"] = .string(title)
            if let friendlyUrlPath { text["friendlyUrlPath"] = .string(friendlyUrlPath) }
        }
        return JSONValue.object(text).jsonString
    }
}

enum StructuredContentRowValidator {
    /// The JournalArticle column lengths (portlet-model-hints.xml).
    static let titleLength = 400
    static let friendlyUrlPathLength = 255
    static let externalReferenceCodeLength = 75
    /// The most content fields a row may carry: a structure with more is not a web content
    /// form anyone fills in, and the bound keeps a hostile row's request small.
    static let maximumContentFields = 500

    static func row(_ line: WriteInputLine, spec: LiferaySinkSpec) throws(RowRejection) -> StructuredContentRow {
        try row(WriteRowParsing.object(line), line: line.number, spec: spec)
    }

    static func row(_ value: JSONValue, line: Int, spec: LiferaySinkSpec) throws(RowRejection) -> StructuredContentRow {
        guard case .object = value else {
            throw RowRejection(message: "a row is a JSON object with title and contentFields, found \(value.typeName)")
        }
        if value["op"]?.stringValue == WriteRowOperation.delete.rawValue { return try deleteRow(value, line: line, spec: spec) }
        let title = try WriteRowParsing.text(value, "title", required: true, limit: titleLength)
        let structureId: Int64
        if let number = try WriteRowParsing.positiveId(value, "contentStructureId", naming: "structure id") {
            structureId = number
        } else if let configured = spec.contentStructureId {
            structureId = configured
        } else {
            throw RowRejection(message: "missing 'contentStructureId' (and the sink names no content-structure-id)")
        }
        var body = JSONObject(minimumCapacity: 7)
        body.appendUnchecked(key: "title", value: .string(title))
        body.appendUnchecked(key: "contentStructureId", value: .int(structureId))
        let description = try WriteRowParsing.text(value, "description", required: false, limit: 4000)
        if !description.isEmpty { body.appendUnchecked(key: "description", value: .string(description)) }
        body.appendUnchecked(key: "contentFields", value: .array(try contentFields(value["contentFields"])))
        let friendly = try WriteRowParsing.text(value, "friendlyUrlPath", required: false, limit: friendlyUrlPathLength)
        if !friendly.isEmpty { body.appendUnchecked(key: "friendlyUrlPath", value: .string(friendly)) }
        if let folder = value["structuredContentFolderId"], !folder.isNull {
            guard let number = folder.int64Value, number >= 0 else {
                throw RowRejection(message: "'structuredContentFolderId' must be a folder id (a whole number, 0 for the site's root), found \(folder.jsonString.prefix(100))")
            }
            if number != 0 { body.appendUnchecked(key: "structuredContentFolderId", value: .int(number)) }
        }
        let erc = try externalReferenceCode(value)
        if !erc.isEmpty { body.appendUnchecked(key: "externalReferenceCode", value: .string(erc)) }
        var row = StructuredContentRow(
            line: line, externalReferenceCode: erc.isEmpty ? nil : erc, title: title,
            friendlyUrlPath: friendly.isEmpty ? nil : friendly, body: body, key: "", legacyKey: "")
        row.key = key(title: row.title, friendlyUrlPath: row.friendlyUrlPath, erc: row.externalReferenceCode, fields: spec.key)
        row.legacyKey = legacyKey(title: row.title, friendlyUrlPath: row.friendlyUrlPath, erc: row.externalReferenceCode, fields: spec.key)
        return row
    }

    /// The row's `externalReferenceCode`, empty when it has none.
    private static func externalReferenceCode(_ value: JSONValue) throws(RowRejection) -> String {
        let erc = try WriteRowParsing.text(value, "externalReferenceCode", required: false, limit: externalReferenceCodeLength)
        if !erc.isEmpty, erc.allSatisfy(\.isWhitespace) {
            throw RowRejection(message: "'externalReferenceCode' is blank")
        }
        if URLText.isDotSegment(erc) {
            // Every other character is percent-encoded into the request's last path segment;
            // `.` and `..` are path steps however they are written (RFC 3986 section 6.2.2.3).
            throw RowRejection(message: "'externalReferenceCode' is '\(erc)', which a URL path reads as a step, not a name")
        }
        return erc
    }

    /// `{"op":"delete", ...}`: the article named by `id`, else by `externalReferenceCode`,
    /// else by the sink's key fields (`title`, `friendlyUrlPath`). A delete by code or key
    /// has the key the article's create had, so the journal knows the article is gone.
    private static func deleteRow(_ value: JSONValue, line: Int, spec: LiferaySinkSpec) throws(RowRejection) -> StructuredContentRow {
        if let id = try WriteRowParsing.positiveId(value, "id", naming: "web content id") {
            return StructuredContentRow(
                line: line, externalReferenceCode: nil, title: "", friendlyUrlPath: nil, body: [:],
                key: WriteKey.encode(["delete-id", String(id)]), legacyKey: "", deletes: true, id: id)
        }
        let erc = try externalReferenceCode(value)
        if !erc.isEmpty {
            return StructuredContentRow(
                line: line, externalReferenceCode: erc, title: "", friendlyUrlPath: nil, body: [:],
                key: key(title: "", friendlyUrlPath: nil, erc: erc, fields: spec.key), legacyKey: "", deletes: true)
        }
        let title = try WriteRowParsing.text(value, "title", required: spec.key.contains("title"), limit: titleLength)
        let friendly = try WriteRowParsing.text(value, "friendlyUrlPath", required: spec.key.contains("friendlyUrlPath"), limit: friendlyUrlPathLength)
        guard !spec.key.isEmpty else {
            throw RowRejection(message: "a delete names its web content by 'id', 'externalReferenceCode' or the sink's key fields")
        }
        return StructuredContentRow(
            line: line, externalReferenceCode: nil, title: title, friendlyUrlPath: friendly.isEmpty ? nil : friendly, body: [:],
            key: key(title: title, friendlyUrlPath: friendly.isEmpty ? nil : friendly, erc: nil, fields: spec.key), legacyKey: "",
            deletes: true)
    }

    /// A row with an external reference code is that code; any other is its declared key
    /// fields. The prefixes keep a code from ever equalling a title.
    static func key(title: String, friendlyUrlPath: String?, erc: String?, fields: [String]) -> String {
        if let erc { return WriteKey.encode(["erc", erc]) }
        return WriteKey.encode(["key"] + fields.map { $0 == "title" ? title : friendlyUrlPath ?? "" })
    }

    /// ``key(title:friendlyUrlPath:erc:fields:)`` as journals of earlier versions wrote it.
    private static func legacyKey(title: String, friendlyUrlPath: String?, erc: String?, fields: [String]) -> String {
        if let erc { return "erc\u{1F}" + erc }
        return "key\u{1F}" + WriteKey.legacy(fields.map { $0 == "title" ? title : friendlyUrlPath ?? "" })
    }

    /// `[{name, contentFieldValue: {data}}]`, keeping only what a write sends; a field
    /// read from a list also has `dataType`, `label`, `inputControl`...
    static func contentFields(_ value: JSONValue?) throws(RowRejection) -> [JSONValue] {
        guard let value, !value.isNull else { return [] }
        guard let fields = value.arrayValue else {
            throw RowRejection(message: "'contentFields' must be a list of {name, contentFieldValue: {data}}, found \(value.typeName)")
        }
        guard fields.count <= maximumContentFields else {
            throw RowRejection(message: "'contentFields' has \(fields.count) fields, more than \(maximumContentFields)")
        }
        var result: [JSONValue] = []
        for (index, field) in fields.enumerated() {
            guard let name = field["name"]?.stringValue, !name.isEmpty else {
                throw RowRejection(message: "contentFields[\(index)] needs a 'name'")
            }
            guard let data = field["contentFieldValue"]?["data"], !data.isNull else {
                throw RowRejection(message: "contentFields[\(index)] ('\(name.prefix(100))') needs 'contentFieldValue': {data}")
            }
            guard data.stringValue != nil || data.boolValue != nil || data.int64Value != nil || data.doubleValue != nil else {
                throw RowRejection(message: "contentFields[\(index)] ('\(name.prefix(100))'): 'data' must be text, a number or a boolean, found \(data.typeName)")
            }
            // `data` is a string in headless-delivery's OpenAPI: a number or boolean goes
            // out as its JSON text (`42`, `true`), the value the portal stores either way.
            let text = data.stringValue ?? data.jsonString
            result.append(["name": .string(name), "contentFieldValue": ["data": .string(text)]])
        }
        return result
    }
}

/// The checks every service makes of a row's text fields.
enum WriteRowParsing {
    /// The line as one JSON value, or the reason it is not one.
    static func object(_ line: WriteInputLine) throws(RowRejection) -> JSONValue {
        if line.truncated {
            throw RowRejection(message: "the line is longer than \(WriteInputLines.maximumLineLength) bytes")
        }
        do {
            return try JSONValue(parsing: line.bytes)
        } catch {
            throw RowRejection(message: "the line is not JSON: \(error)")
        }
    }

    /// An id field: nil when absent or null, else a positive whole number or a rejection
    /// that says what the id names (`a structure id`), when `naming` is given.
    static func positiveId(_ row: JSONValue, _ field: String, naming: String? = nil) throws(RowRejection) -> Int64? {
        guard let given = row[field], !given.isNull else { return nil }
        guard let number = given.int64Value, number > 0 else {
            let expected = naming.map { "\($0) (a positive whole number)" } ?? "positive whole number"
            throw RowRejection(message: "'\(field)' must be a \(expected), found \(given.jsonString.prefix(100))")
        }
        return number
    }

    /// A text field: absent or null is empty (or a rejection when `required`), anything
    /// but text is a rejection, and so is text longer than the column.
    static func text(_ row: JSONValue, _ field: String, required: Bool, limit: Int) throws(RowRejection) -> String {
        guard let value = row[field], !value.isNull else {
            if required { throw RowRejection(message: "missing '\(field)'") }
            return ""
        }
        guard let text = value.stringValue else {
            throw RowRejection(message: "'\(field)' must be text, found \(value.typeName)")
        }
        if required, text.allSatisfy(\.isWhitespace) { throw RowRejection(message: "'\(field)' is empty") }
        guard text.count <= limit else {
            throw RowRejection(message: "'\(field)' is \(text.count) characters, longer than the portal's \(limit)")
        }
        return text
    }
}
