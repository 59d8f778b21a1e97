import ScreensJSON

/// Headless-delivery's document writes, as `DocumentResourceImpl` (liferay/liferay-portal
/// `modules/apps/headless/headless-delivery/headless-delivery-impl/.../resource/v1_0/DocumentResourceImpl.java`)
/// answers them:
///
/// - `POST /o/headless-delivery/v1.0/document-folders/{documentFolderId}/documents` and
///   `POST .../sites/{siteId}/documents` (the site's root folder): `multipart/form-data` with
///   a `file` part, whose `Content-Type` is the document's, and an optional `document` part,
///   a `Document` JSON (`title`, `description`, `fileName`...). The folder (404), the
///   user's permission on its site (403), the size (413 over `dl.file.max.size`), then the
///   checks of the JSON-WS upload (``DLAppUploads/store(_:repositoryId:folderId:sourceFileName:mimeType:title:description:portal:account:)``):
///   a title or file name already in the folder is the DuplicateFileEntryException that
///   `DuplicateDocumentExceptionMapper` answers with 409 ("file entry" read as "document").
///   Answers the stored `Document` with 200. The body is parsed as it arrives
///   (``MultipartReceiver``), so an upload of any size costs no memory.
/// - `GET .../sites/{siteId}/documents`: the root folder's documents, paged as
///   ``FolderDocuments`` pages a folder's.
/// - `GET`, `DELETE /o/headless-delivery/v1.0/documents/{documentId}`: the document (404), the
///   permission (403); `DELETE` answers 204.
///
/// A `document` part with a property the schema does not define is refused with 400, as
/// portal-vulcan's `UnrecognizedPropertyExceptionMapper` refuses it.
enum HeadlessDocumentWrites {
    static let prefix = "/o/headless-delivery/v1.0/"

    /// What a path names.
    enum Target: Sendable, Equatable {
        /// `.../document-folders/{id}/documents` (POST only; the list is ``FolderDocuments``).
        case folder(Substring)
        /// `.../sites/{id}/documents`: the site's root folder.
        case siteRoot(Substring)
        /// `.../documents/{id}`.
        case document(Substring)
    }

    /// The properties of the OpenAPI's `Document` schema.
    static let documentProperties: Set<String> = [
        "actions", "adaptedImages", "aggregateRating", "assetLibraryKey", "contentUrl", "contentValue", "creator", "customFields",
        "dateCreated", "dateExpired", "dateModified", "datePublished", "description", "documentFolderExternalReferenceCode",
        "documentFolderId", "documentType", "encodingFormat", "externalReferenceCode", "fileExtension", "fileName", "id", "keywords",
        "numberOfComments", "relatedContents", "renderedContents", "siteId", "sizeInBytes", "taxonomyCategoryBriefs",
        "taxonomyCategoryIds", "title", "viewableBy",
    ]

    static func target(ofPath path: Substring) -> Target? {
        guard path.hasPrefix(prefix) else { return nil }
        let parts = path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        let collection = parts.first.map(String.init) ?? ""
        switch (parts.count, collection) {
        case (3, "document-folders") where parts[2] == "documents" && !parts[1].isEmpty: return .folder(parts[1])
        case (3, "sites") where parts[2] == "documents" && !parts[1].isEmpty: return .siteRoot(parts[1])
        case (2, "documents") where !parts[1].isEmpty: return .document(parts[1])
        default: return nil
        }
    }

    /// Whether a POST to `path` is an upload, its body parsed as it arrives.
    static func isUploadPath(_ path: Substring) -> Bool {
        switch target(ofPath: path) {
        case .folder?, .siteRoot?: true
        default: false
        }
    }

    /// The target of a request this type answers (a folder's list GET is ``FolderDocuments``').
    static func target(of request: SandboxRequest) -> Target? {
        guard let target = target(ofPath: Substring(request.path)) else { return nil }
        if case .folder = target, request.method != "POST" { return nil }
        return target
    }

    static func respond(to request: SandboxRequest, target: Target, portal: Portal, account: Account) -> SandboxResponse {
        do {
            switch (request.method, target) {
            case ("POST", .folder(let id)):
                guard let folderId = Int64(id), let folder = portal.data.documents.folders[folderId] else {
                    throw HeadlessError.notFound("No DLFolder exists with the primary key \(id)")
                }
                return try upload(request, groupId: folder.groupId, folderId: folderId, portal: portal, account: account)
            case ("POST", .siteRoot(let id)):
                return try upload(request, groupId: try site(id, portal), folderId: 0, portal: portal, account: account)
            case ("GET", .siteRoot(let id)):
                let groupId = try site(id, portal)
                let page = try HeadlessPaging.positive(request.query, "page", default: 1)
                let pageSize = try HeadlessPaging.positive(request.query, "pageSize", default: 20)
                let rows = try headless { try portal.fileEntries(repositoryId: groupId, folderId: 0, mimeTypes: nil, for: account) }
                let range = HeadlessPaging.range(page: page, pageSize: pageSize, count: rows.count)
                return .json(200, HeadlessPaging.body(items: rows[range].map { item($0, portal) }, page: page, pageSize: pageSize, totalCount: rows.count))
            case ("GET", .document(let id)), ("DELETE", .document(let id)):
                guard let documentId = Int64(id), let entry = portal.data.uploads.find(documentId, stored: portal.data.documents.entries) else {
                    throw HeadlessError.notFound("No DLFileEntry exists with the primary key \(id)")
                }
                try headless { try portal.checkGroup(entry["groupId"]?.int64Value ?? 0, for: account) }
                guard request.method == "DELETE" else { return .json(200, item(entry, portal)) }
                _ = portal.data.uploads.delete(documentId)
                return SandboxResponse(status: 204, headers: [], body: [])
            default:
                var response = SandboxResponse.json(405, ["status": "METHOD_NOT_ALLOWED", "title": "HTTP 405 Method Not Allowed"])
                switch target {
                case .folder: response.headers.append(("Allow", "GET, POST"))
                case .siteRoot: response.headers.append(("Allow", "GET, POST"))
                case .document: response.headers.append(("Allow", "DELETE, GET"))
                }
                return response
            }
        } catch let error as HeadlessError {
            return .json(error.status, error.body)
        } catch {
            return .json(500, ["status": "INTERNAL_SERVER_ERROR", "title": .string("\(error)")])
        }
    }

    private static func site(_ id: Substring, _ portal: Portal) throws -> Int64 {
        guard let groupId = Int64(id), portal.data.sites[groupId] != nil else { throw HeadlessError.notFound("No Group exists with the primary key \(id)") }
        return groupId
    }

    private static func item(_ entry: JSONValue, _ portal: Portal) -> JSONValue {
        FolderDocuments.item(
            entry, numberOfComments: portal.data.discussions.count(className: FolderDocuments.fileEntry, classPK: entry["fileEntryId"]?.int64Value ?? 0))
    }

    private static func upload(_ request: SandboxRequest, groupId: Int64, folderId: Int64, portal: Portal, account: Account) throws -> SandboxResponse {
        guard let received = request.upload else {
            throw HeadlessError(status: 415, statusName: "UNSUPPORTED_MEDIA_TYPE", title: "HTTP 415 Unsupported Media Type")
        }
        if let malformed = received.malformed { throw HeadlessError.badRequest("The multipart body could not be read: \(malformed)") }
        try headless { try portal.checkGroup(groupId, for: account) }
        var document = JSONObject()
        if let text = received.fields["document"] {
            guard let value = try? JSONValue(parsing: Array(text.utf8)), case .object(let object) = value else {
                throw HeadlessError.badRequest("The document part is not a Document JSON object")
            }
            for key in object.keys where !documentProperties.contains(key) {
                throw HeadlessError.badRequest("The property \"\(key)\" is not defined in Document.")
            }
            document = object
        }
        guard let file = received.files.first(where: { $0.name == "file" }) else {
            throw HeadlessError.badRequest("The multipart body has no file part")
        }
        let entry = try headless {
            try DLAppUploads.checkSize(file, portal: portal)
            return try DLAppUploads.store(
                file, repositoryId: groupId, folderId: folderId, sourceFileName: document["fileName"]?.stringValue ?? file.fileName,
                mimeType: file.contentType ?? "application/octet-stream", title: document["title"]?.stringValue ?? "",
                description: document["description"]?.stringValue ?? "", portal: portal, account: account)
        }
        return .json(200, item(entry, portal))
    }

    /// Runs portal checks, their PortalError answered as headless-delivery's mappers answer it.
    private static func headless<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PortalError {
            switch error.status {
            case 403: throw HeadlessError.forbidden(error.message)
            case 404: throw HeadlessError.notFound(error.message)
            case 413: throw HeadlessError(status: 413, statusName: "REQUEST_ENTITY_TOO_LARGE", title: error.message)
            default:
                if error.type.hasSuffix("DuplicateFileEntryException") {
                    throw HeadlessError(status: 409, statusName: "CONFLICT", title: error.message.replacing("file entry", with: "document"))
                }
                throw HeadlessError.badRequest("\(error.type.split(separator: ".").last ?? ""): \(error.message)")
            }
        }
    }
}
