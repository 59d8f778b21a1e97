import ScreensBus

/// One input row, checked against `add-entry`'s parameters before any request (the
/// `validateData` of a Screenlet): what the portal would refuse is refused here, with the
/// line number, instead of failing a whole batch.
struct BookmarkRow: Sendable, Hashable {
    var line: Int
    var groupId: Int64
    var folderId: Int64
    var name: String
    var url: String
    var description: String
    /// The declared key fields' values (``WriteKey``): what identifies the entry on the portal.
    var key: String
    /// The key as journals of earlier versions wrote it.
    var legacyKey: String
    /// The row removes its entry (`"op":"delete"`): found by key, it is sent as `delete-entry`.
    var deletes = false

    /// The values the portal stores, for comparing with an entry found by key; a delete's
    /// is the same for every delete, so the journal tells a delete already done.
    var content: String { deletes ? WriteKey.encode(["deleted"]) : WriteKey.encode(storedValues) }
    /// Earlier versions never deleted, so no legacy record holds a delete's content.
    var legacyContent: String { deletes ? content : WriteKey.legacy(storedValues) }
    private var storedValues: [String] { [name, url, description, String(folderId)] }

    /// The command parameters of `add-entry` (and, with `entryId`, `update-entry`).
    func parameters(entryId: Int64? = nil) -> JSONObject {
        var params = JSONObject(minimumCapacity: 7)
        if let entryId { params.appendUnchecked(key: "entryId", value: .int(entryId)) }
        params.appendUnchecked(key: "groupId", value: .int(groupId))
        params.appendUnchecked(key: "folderId", value: .int(folderId))
        params.appendUnchecked(key: "name", value: .string(name))
        params.appendUnchecked(key: "url", value: .string(url))
        params.appendUnchecked(key: "description", value: .string(description))
        // No `serviceContext`: the portal gives every command the request's own, and an
        // explicit null would replace it (the service then fails on null).
        return params
    }
}

/// Why a row is refused before it is sent.
struct RowRejection: Error, Sendable {
    var message: String
}

enum BookmarkRowValidator {
    /// The BookmarksEntry column lengths (the portal's model hints).
    static let nameLength = 255
    static let urlLength = 4000
    static let descriptionLength = 4000
    /// The protocols `java.net.URL` accepts, which is what the portal's `Validator.isUrl` checks.
    static let urlSchemes: Set<String> = ["http", "https", "ftp", "file", "jar", "mailto"]

    /// Parses and checks one input line.
    static func row(_ line: WriteInputLine, spec: LiferaySinkSpec) throws(RowRejection) -> BookmarkRow {
        try row(WriteRowParsing.object(line), line: line.number, spec: spec)
    }

    /// Checks one row (from a line, or from a source's list when copying).
    static func row(_ value: JSONValue, line: Int, spec: LiferaySinkSpec) throws(RowRejection) -> BookmarkRow {
        guard case .object = value else {
            throw RowRejection(message: "a row is a JSON object with url (and name, description, folderId), found \(value.typeName)")
        }
        // `add` and `update` say what a row without `op` says: the key and the journal decide.
        let deletes = try WriteRowParsing.operation(value) == .delete
        let url = try WriteRowParsing.text(value, "url", required: true, limit: urlLength)
        guard isURL(url) else {
            throw RowRejection(
                message: "'url' is not a URL the portal accepts (EntryURLException): it needs a scheme such as https:, found '\(url.prefix(200))'")
        }
        var name = try WriteRowParsing.text(value, "name", required: false, limit: nameLength)
        if name.isEmpty { name = url }
        let description = try WriteRowParsing.text(value, "description", required: false, limit: descriptionLength)
        // The sink's folder-id puts every row in one folder: a copied row's folderId names a
        // folder of the source portal, which means nothing in the target.
        let folderId: Int64
        if let target = spec.folderId {
            folderId = target
        } else if let given = value["folderId"], !given.isNull {
            guard let number = folderNumber(given), number >= 0 else {
                throw RowRejection(message: "'folderId' must be a folder id (a whole number, 0 for the site's root), found \(given.jsonString.prefix(100))")
            }
            folderId = number
        } else {
            throw RowRejection(message: "missing 'folderId' (and the sink names no folder-id)")
        }
        var row = BookmarkRow(
            line: line, groupId: spec.groupId, folderId: folderId, name: name, url: url, description: description, key: "",
            legacyKey: "", deletes: deletes)
        let values = keyValues(of: row, fields: spec.key)
        row.key = WriteKey.encode(values)
        row.legacyKey = WriteKey.legacy(values)
        return row
    }

    /// The key of a row or of an entry found on the portal: the same text for the same entry.
    static func key(of row: BookmarkRow, fields: [String]) -> String {
        WriteKey.encode(keyValues(of: row, fields: fields))
    }

    private static func keyValues(of row: BookmarkRow, fields: [String]) -> [String] {
        fields.map { field in
            switch field {
            case "url": row.url
            case "name": row.name
            default: String(row.folderId)
            }
        }
    }

    /// A folder id as a JSON number or numeric text, as the portal's converter takes it.
    private static func folderNumber(_ value: JSONValue) -> Int64? {
        if let number = value.int64Value { return number }
        if let text = value.stringValue, !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) { return Int64(text) }
        return nil
    }

    /// `Validator.isUrl`: a `:` and a protocol before it that `java.net.URL` knows.
    static func isURL(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":") else { return false }
        return urlSchemes.contains(text[..<colon].lowercased())
    }
}
