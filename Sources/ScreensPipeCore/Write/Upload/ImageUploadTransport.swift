import ScreensBus

/// The requests of an image write: the multipart `POST /api/jsonws/dlapp/add-file-entry`
/// the Mobile SDK's upload sends (the command's parameters as form fields, the file as the
/// `file` part, streamed from disk), and the folder listing that settles an upload whose
/// answer was lost.
struct ImageUploadTransport: Sendable {
    /// What an upload came to.
    enum Answer: Sendable {
        /// The stored file entry.
        case stored(JSONValue)
        /// The portal refused it, with its reason.
        case refused(ScreensPipeError)
        /// No answer could be read: the entry may or may not exist.
        case ambiguous(String)
        /// Nothing reached the portal whole (no connection, or the file could not be read
        /// to its end): nothing was stored.
        case notSent(String)
    }

    static let path = "/api/jsonws/dlapp/add-file-entry"

    let jsonws: JSONWSBookmarkTransport

    var settings: HTTPSourceSettings { jsonws.settings }

    /// The upload request for `row`, its progress reported to `onProgress`. A dry run shows
    /// it without its body.
    func request(_ row: ImageRow, onProgress: (@Sendable (Int64, Int64) -> Void)?) throws(ScreensPipeError) -> HTTPRequest {
        let boundary = Self.boundary(avoiding: row)
        var head: [UInt8] = []
        func field(_ name: String, _ value: String) {
            head += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        field("repositoryId", String(row.repositoryId))
        field("folderId", String(row.folderId))
        field("sourceFileName", row.sourceFileName)
        field("mimeType", row.mimeType)
        field("title", row.title)
        field("description", row.description)
        field("changeLog", row.changeLog)
        head += Array(
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(Self.quoted(row.sourceFileName))\"\r\nContent-Type: \(row.mimeType)\r\n\r\n".utf8)
        let tail = Array("\r\n--\(boundary)--\r\n".utf8)
        var request = HTTPRequest(method: "POST", url: jsonws.baseURL.trimmingSuffix("/") + Self.path)
        request.upload = HTTPUploadBody(head: head, filePath: row.path, fileLength: row.size, tail: tail, onProgress: onProgress)
        request.headers.add(name: "Content-Type", value: "multipart/form-data; boundary=\(boundary)")
        request.headers.add(name: "Accept", value: "application/json")
        try settings.authorize(&request)
        try jsonws.credentials.planned(&request)
        // A whole-transfer limit would cut a large file short: the sink's timeout bounds a
        // stall instead (fewer than 1 KiB/s for that long aborts).
        let stall = max(request.timeout ?? .seconds(30), .seconds(30))
        request.timeout = nil
        request.lowSpeed = LowSpeedLimit(bytesPerSecond: 1024, duration: stall)
        // An upload is never sent twice by libcurl itself.
        request.freshConnection = true
        return request
    }

    /// Sends the upload once (but for a 401 to an OAuth 2 token, answered before anything
    /// is stored).
    func upload(_ prepared: HTTPRequest) async throws(ScreensPipeError) -> Answer {
        let client = jsonws.client
        let (request, result) = try await jsonws.credentials.send(prepared) { (request) async throws(HTTPError) -> HTTPResponse in
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
        let body: JSONValue
        switch try WriteAnswerStatus.read(response, request: request.requestDescription) {
        case .ambiguous(let reason): return .ambiguous(reason)
        case .refused(let error): return .refused(error)
        case .body(let answer): body = answer
        }
        if body["exception"] != nil || body["error"] != nil {
            return .refused(LiferayErrorBody.error(for: response, page: 0, request: request.requestDescription))
        }
        guard body["fileEntryId"]?.int64Value != nil else { return .ambiguous("HTTP \(response.status) without a fileEntryId") }
        return .stored(body)
    }

    /// The folder's entry with the row's title and size: what an unanswered upload stored.
    func lookup(_ row: ImageRow) async throws(ScreensPipeError) -> Int64? {
        let params: JSONObject = ["repositoryId": .int(row.repositoryId), "folderId": .int(row.folderId), "start": .int(-1), "end": .int(-1)]
        let entries: [JSONValue]
        do throws(ScreensPipeError) {
            entries = try await jsonws.read(("/dlapp/get-file-entries", params), what: "the file entries of folder \(row.folderId)").arrayValue ?? []
        } catch where error.isRefusedRead {
            return nil  // no such folder: nothing was stored in it
        }
        let match = entries.first { $0["title"]?.stringValue == row.title && $0["size"]?.int64Value == row.size }
        return match?["fileEntryId"]?.int64Value
    }

    /// A boundary that no field of the row holds (the file's bytes may hold anything;
    /// 128 random bits make a collision with them vanishingly unlikely).
    private static func boundary(avoiding row: ImageRow) -> String {
        while true {
            var generator = SystemRandomNumberGenerator()
            // 32 hex digits: with the prefix, well within RFC 2046's 70 characters.
            let digits = (0..<2).map { _ in
                let hex = String(generator.next() as UInt64, radix: 16)
                return String(repeating: "0", count: 16 - hex.count) + hex
            }.joined()
            let boundary = "screens-pipe-" + digits
            if ![row.title, row.description, row.changeLog, row.sourceFileName, row.mimeType].contains(where: { $0.contains(boundary) }) {
                return boundary
            }
        }
    }

    /// A file name in a quoted `filename` parameter: quotes and line breaks percent-encoded,
    /// as browsers send them (RFC 7578, section 4.2).
    private static func quoted(_ name: String) -> String {
        var text = ""
        for character in name {
            switch character {
            case "\"": text += "%22"
            case "\r": text += "%0D"
            case "\n": text += "%0A"
            default: text.append(character)
            }
        }
        return text
    }
}
