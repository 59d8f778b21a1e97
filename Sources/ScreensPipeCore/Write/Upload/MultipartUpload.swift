import ScreensBus

/// A `multipart/form-data` request whose file part is streamed from disk: the one rule every
/// upload (JSON-WS `/dlapp/add-file-entry`, headless-delivery's documents) builds its body,
/// limits and connection by.
enum MultipartUpload {
    /// A text part: its form name, its value and, when it is not plain text, its type.
    struct Field: Sendable {
        var name: String
        var value: String
        var contentType: String?

        init(_ name: String, _ value: String, contentType: String? = nil) {
            self.name = name
            self.value = value
            self.contentType = contentType
        }
    }

    /// The file part: its form name, the file name and type it is sent with, and the file.
    struct File: Sendable {
        var name: String
        var fileName: String
        var contentType: String
        var path: String
        var size: Int64
    }

    /// Gives `request` the body `fields` then `file` (streamed, its progress reported to
    /// `onProgress`) and its `Content-Type`.
    static func attach(
        to request: inout HTTPRequest, fields: [Field], file: File, onProgress: (@Sendable (Int64, Int64) -> Void)?
    ) {
        let boundary = boundary(avoiding: fields.flatMap { [$0.name, $0.value, $0.contentType ?? ""] } + [file.name, file.fileName, file.contentType])
        var head: [UInt8] = []
        for field in fields {
            head += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(field.name)\"\r\n".utf8)
            if let type = field.contentType { head += Array("Content-Type: \(type)\r\n".utf8) }
            head += Array("\r\n\(field.value)\r\n".utf8)
        }
        head += Array(
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(file.name)\"; filename=\"\(quoted(file.fileName))\"\r\nContent-Type: \(file.contentType)\r\n\r\n".utf8)
        let tail = Array("\r\n--\(boundary)--\r\n".utf8)
        request.upload = HTTPUploadBody(head: head, filePath: file.path, fileLength: file.size, tail: tail, onProgress: onProgress)
        request.headers.add(name: "Content-Type", value: "multipart/form-data; boundary=\(boundary)")
    }

    /// The limits of an upload, set once the sink's own are applied: a whole-transfer limit
    /// would cut a large file short, so the sink's timeout bounds a stall instead (fewer than
    /// 1 KiB/s for that long aborts); and an upload is never sent twice by libcurl itself.
    static func limit(_ request: inout HTTPRequest) {
        let stall = max(request.timeout ?? .seconds(30), .seconds(30))
        request.timeout = nil
        request.lowSpeed = LowSpeedLimit(bytesPerSecond: 1024, duration: stall)
        request.freshConnection = true
    }

    /// A boundary that none of `texts` holds (the file's bytes may hold anything; 128
    /// random bits make a collision with them vanishingly unlikely).
    private static func boundary(avoiding texts: [String]) -> String {
        while true {
            var generator = SystemRandomNumberGenerator()
            // 32 hex digits: with the prefix, well within RFC 2046's 70 characters.
            let digits = (0..<2).map { _ in
                let hex = String(generator.next() as UInt64, radix: 16)
                return String(repeating: "0", count: 16 - hex.count) + hex
            }.joined()
            let boundary = "screens-pipe-" + digits
            if !texts.contains(where: { $0.contains(boundary) }) { return boundary }
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
