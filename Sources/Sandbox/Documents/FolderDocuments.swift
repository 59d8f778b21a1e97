import ScreensJSON

/// `GET /o/headless-delivery/v1.0/document-folders/{documentFolderId}/documents`: the
/// documents of a folder as headless-delivery's `DocumentResourceImpl` pages them, items in
/// the OpenAPI's `Document` schema (liferay/liferay-portal@4be0bdd7
/// `modules/apps/headless/headless-delivery/headless-delivery-impl/rest-openapi.yaml`).
/// The sandbox pages (`page`, `pageSize`) and refuses `filter`, `search` and `sort`, which it
/// does not implement for documents, with a 400.
struct FolderDocuments: Sendable {
    static let pathPrefix = "/o/headless-delivery/v1.0/document-folders/"
    static let pathSuffix = "/documents"

    let portal: Portal

    /// The folder id of a documents path, or nil for any other path.
    static func folderId(ofPath path: String) -> Substring? {
        guard path.hasPrefix(pathPrefix), path.hasSuffix(pathSuffix), path.count > pathPrefix.count + pathSuffix.count else {
            return nil
        }
        let id = path.dropFirst(pathPrefix.count).dropLast(pathSuffix.count)
        return id.isEmpty || id.contains("/") ? nil : id
    }

    func page(folderId: Substring, query: QueryString, account: Account) throws -> JSONValue {
        let page = try HeadlessPaging.positive(query, "page", default: 1)
        let pageSize = try HeadlessPaging.positive(query, "pageSize", default: 20)
        for unsupported in ["filter", "search", "sort"] where !(query[unsupported] ?? "").isEmpty {
            throw HeadlessError.badRequest("The sandbox does not \(unsupported) documents")
        }
        guard let id = Int64(folderId), let folder = portal.data.documents.folders[id] else {
            throw HeadlessError.notFound("No DLFolder exists with the primary key \(folderId)")
        }
        let rows: [JSONValue]
        do {
            rows = try portal.fileEntries(repositoryId: folder.groupId, folderId: id, mimeTypes: nil, for: account)
        } catch let error as PortalError {
            throw error.status == 403 ? HeadlessError.forbidden(error.message) : HeadlessError.notFound(error.message)
        }
        let range = HeadlessPaging.range(page: page, pageSize: pageSize, count: rows.count)
        return HeadlessPaging.body(items: rows[range].map { row in
            Self.item(row, numberOfComments: portal.data.discussions.count(className: Self.fileEntry, classPK: row["fileEntryId"]?.int64Value ?? 0))
        }, page: page, pageSize: pageSize, totalCount: rows.count)
    }

    static let fileEntry = "com.liferay.document.library.kernel.model.DLFileEntry"

    /// One file entry as a headless `Document`; dates to the second; `numberOfComments` is
    /// its discussion's.
    static func item(_ row: JSONValue, numberOfComments: Int) -> JSONValue {
        func long(_ key: String) -> Int64 { row[key]?.int64Value ?? 0 }
        func text(_ key: String) -> String { row[key]?.stringValue ?? "" }
        func date(_ key: String) -> JSONValue {
            let milliseconds = long(key)
            return .string(ISODate.format(epochMilliseconds: milliseconds - ((milliseconds % 1000) + 1000) % 1000))
        }
        let contentURL = "/documents/\(long("groupId"))/\(long("folderId"))/\(percentEncoded(text("title")))/\(text("uuid"))?version=\(text("version"))"
        return [
            "actions": [:],
            "adaptedImages": [],
            "contentUrl": .string(contentURL),
            "creator": ["contentType": "UserAccount", "id": .int(long("userId")), "name": .string(text("userName"))],
            "customFields": [],
            "dateCreated": date("createDate"),
            "dateModified": date("modifiedDate"),
            "description": .string(text("description")),
            "documentFolderId": .int(long("folderId")),
            "encodingFormat": .string(text("mimeType")),
            "fileExtension": .string(text("extension")),
            "fileName": .string(text("fileName")),
            "id": .int(long("fileEntryId")),
            "keywords": [],
            "numberOfComments": .int(Int64(numberOfComments)),
            "relatedContents": [],
            "siteId": .int(long("groupId")),
            "sizeInBytes": .int(long("size")),
            "taxonomyCategoryBriefs": [],
            "title": .string(text("title")),
        ]
    }

    /// Everything but RFC 3986's unreserved characters as `%XX`.
    private static func percentEncoded(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            let unreserved = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
            encoded += unreserved ? String(UnicodeScalar(byte)) : "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
        }
        return encoded
    }
}
