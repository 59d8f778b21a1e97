import ScreensBus

/// The requests of an image write, over either transport:
///
/// - JSON-WS: the multipart `POST /api/jsonws/dlapp/add-file-entry` the Mobile SDK's upload
///   sends (the command's parameters as form fields, the file as the `file` part), the
///   folder's `/dlapp/get-file-entries` that settles an upload whose answer was lost, and
///   `/dlapp/delete-file-entry`.
/// - headless (``headless`` set): headless-delivery's multipart
///   `POST /o/headless-delivery/v1.0/document-folders/{documentFolderId}/documents` (or
///   `/sites/{siteId}/documents` for the site's root folder) with a `document` part
///   (`{"title","description"}`, a `Document`) and the `file` part whose type is the
///   document's, the folder's documents as the lookup, and
///   `DELETE /o/headless-delivery/v1.0/documents/{documentId}`.
///
/// Either way the file is streamed from disk (``MultipartUpload``).
struct ImageUploadTransport: Sendable {
    /// What an upload came to.
    enum Answer: Sendable {
        /// The stored file entry (JSON-WS) or `Document` (headless).
        case stored(JSONValue)
        /// The portal refused it, with its reason.
        case refused(ScreensPipeError)
        /// No answer could be read: the entry may or may not exist.
        case ambiguous(String)
        /// Nothing reached the portal whole (no connection, or the file could not be read
        /// to its end): nothing was stored.
        case notSent(String)
    }

    /// What a delete came to.
    enum DeleteAnswer: Sendable {
        case deleted
        /// The portal refused it; `gone` when it says the entry does not exist.
        case refused(ScreensPipeError, gone: Bool)
        case ambiguous(String)
    }

    static let path = "/api/jsonws/dlapp/add-file-entry"

    let jsonws: JSONWSBookmarkTransport
    /// Set for `transport: headless`: every request goes through headless-delivery.
    var headless: HeadlessWriteTransport?

    var settings: HTTPSourceSettings { jsonws.settings }

    private var credentials: WriteCredentials { headless?.credentials ?? jsonws.credentials }

    /// The upload request for `row`, its progress reported to `onProgress`. A dry run shows
    /// it without its body.
    func request(_ row: ImageRow, onProgress: (@Sendable (Int64, Int64) -> Void)?) throws(ScreensPipeError) -> HTTPRequest {
        let file = MultipartUpload.File(name: "file", fileName: row.sourceFileName, contentType: row.mimeType, path: row.path, size: row.size)
        var request: HTTPRequest
        if let headless {
            request = HTTPRequest(method: "POST", url: documentsURL(headless, row.folderId))
            MultipartUpload.attach(
                to: &request, fields: [MultipartUpload.Field("document", Self.document(row).jsonString, contentType: "application/json")], file: file,
                onProgress: onProgress)
        } else {
            request = HTTPRequest(method: "POST", url: jsonws.baseURL.trimmingSuffix("/") + Self.path)
            let fields = [
                ("repositoryId", String(row.repositoryId)), ("folderId", String(row.folderId)), ("sourceFileName", row.sourceFileName),
                ("mimeType", row.mimeType), ("title", row.title), ("description", row.description), ("changeLog", row.changeLog),
            ].map { MultipartUpload.Field($0.0, $0.1) }
            MultipartUpload.attach(to: &request, fields: fields, file: file, onProgress: onProgress)
        }
        request.headers.add(name: "Accept", value: "application/json")
        try settings.authorize(&request)
        try credentials.planned(&request)
        MultipartUpload.limit(&request)
        return request
    }

    /// The `document` part of a headless upload: the `Document` fields a row sets (its type
    /// is the file part's).
    static func document(_ row: ImageRow) -> JSONValue {
        var document: JSONObject = ["title": .string(row.title)]
        if !row.description.isEmpty { document["description"] = .string(row.description) }
        return .object(document)
    }

    /// A folder's documents: `/document-folders/{id}/documents`, or the site's for its root.
    private func documentsURL(_ headless: HeadlessWriteTransport, _ folderId: Int64) -> String {
        folderId == 0 ? headless.headlessDeliveryURL + "/sites/\(headless.siteId)/documents" : headless.headlessDeliveryURL + "/document-folders/\(folderId)/documents"
    }

    /// The id of what an upload stored: a file entry's `fileEntryId`, a document's `id`.
    func entryId(_ stored: JSONValue) -> Int64? {
        headless == nil ? stored["fileEntryId"]?.int64Value : stored["id"]?.int64Value
    }

    /// Sends the upload once (but for a 401 to an OAuth 2 token, answered before anything
    /// is stored).
    func upload(_ prepared: HTTPRequest) async throws(ScreensPipeError) -> Answer {
        let client = jsonws.client
        let (request, result) = try await credentials.send(prepared) { (request) async throws(HTTPError) -> HTTPResponse in
            try await client.send(request)
        }
        let response: HTTPResponse
        switch result {
        case .success(let answer): response = answer
        case .failure(let error):
            if error.kind == .cancelled { throw ScreensPipeError(.cancelled, "the upload was cancelled", request: request.requestDescription) }
            if [.connectionRefused, .dns, .tls, .proxy].contains(error.kind) { return .notSent("\(error)") }
            // The file failed to read (or changed) mid-body: the portal got no whole request.
            if error.kind == .other { return .notSent(error.message) }
            return .ambiguous("\(error)")
        }
        if let headless {
            switch try headless.interpret(response, request: request) {
            case .stored(let document):
                guard entryId(document) != nil else { return .ambiguous("HTTP \(response.status) without a document id") }
                return .stored(document)
            case .refused(let title, let status):
                return .refused(ScreensPipeError.http(title, request: request.requestDescription, status: status))
            case .ambiguous(let reason):
                return .ambiguous(reason)
            }
        }
        let body: JSONValue
        switch try WriteAnswerStatus.read(response, request: request.requestDescription) {
        case .ambiguous(let reason): return .ambiguous(reason)
        case .refused(let error): return .refused(error)
        case .body(let answer): body = answer
        }
        if body["exception"] != nil || body["error"] != nil {
            return .refused(LiferayErrorBody.error(for: response, page: 0, request: request.requestDescription))
        }
        guard entryId(body) != nil else { return .ambiguous("HTTP \(response.status) without a fileEntryId") }
        return .stored(body)
    }

    /// The folder's entry with the row's title and size: what an unanswered upload stored.
    func lookupEntry(_ row: ImageRow) async throws(ScreensPipeError) -> JSONValue? {
        if let headless { return try await lookupDocument(row, headless) }
        let params: JSONObject = ["repositoryId": .int(row.repositoryId), "folderId": .int(row.folderId), "start": .int(-1), "end": .int(-1)]
        let entries: [JSONValue]
        do throws(ScreensPipeError) {
            entries = try await jsonws.read(("/dlapp/get-file-entries", params), what: "the file entries of folder \(row.folderId)").arrayValue ?? []
        } catch where error.isRefusedRead {
            return nil  // no such folder: nothing was stored in it
        }
        return entries.first { $0["title"]?.stringValue == row.title && $0["size"]?.int64Value == row.size && entryId($0) != nil }
    }

    /// Every page of the folder's documents, retried like any read, for the row's title and
    /// size (`sizeInBytes`); nil when none matches or the folder does not exist.
    private func lookupDocument(_ row: ImageRow, _ headless: HeadlessWriteTransport) async throws(ScreensPipeError) -> JSONValue? {
        try await headless.firstItem(in: documentsURL(headless, row.folderId), describing: "the documents of folder \(row.folderId)") {
            $0["title"]?.stringValue == row.title && $0["sizeInBytes"]?.int64Value == row.size && $0["id"]?.int64Value != nil
        }
    }

    private static func deleteCommand(_ row: ImageRow) -> JSONWSCommand {
        ("/dlapp/delete-file-entry", ["fileEntryId": .int(row.fileEntryId)])
    }

    /// The delete request for `row`, as a dry run shows it.
    func deleteRequest(_ row: ImageRow) throws(ScreensPipeError) -> HTTPRequest {
        if let headless { return try headless.request("DELETE", url: headless.headlessDeliveryURL + "/documents/\(row.fileEntryId)", body: nil) }
        return try jsonws.request([Self.deleteCommand(row)])
    }

    /// Sends the delete once.
    func delete(_ row: ImageRow) async throws(ScreensPipeError) -> DeleteAnswer {
        if let headless {
            switch try await headless.write("DELETE", url: headless.headlessDeliveryURL + "/documents/\(row.fileEntryId)", body: nil) {
            case .stored: return .deleted
            case .refused(let title, let status):
                return .refused(ScreensPipeError.http(title, status: status), gone: status == 404)
            case .ambiguous(let reason): return .ambiguous(reason)
            }
        }
        switch try await jsonws.send([Self.deleteCommand(row)]) {
        case .results: return .deleted
        case .refused(let error): return .refused(error, gone: error.exceptionType?.hasSuffix("NoSuchFileEntryException") == true)
        case .ambiguous(let reason), .notSent(let reason): return .ambiguous(reason)
        }
    }
}
