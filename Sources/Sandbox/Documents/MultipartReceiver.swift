#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// A `multipart/form-data` body parsed as it arrives, in bounded memory: text fields are
/// kept (each at most ``maximumFieldSize``), a file part is only counted, its first bytes
/// kept to tell its content type, as a portal streams an upload to a temporary file.
struct MultipartReceiver: Sendable {
    /// A file part as received: its form name, file name, declared type and size.
    struct FilePart: Sendable {
        var name: String
        var fileName: String
        var contentType: String?
        var size: Int64
        /// The first bytes, enough for the magic numbers of the formats the sandbox knows.
        var leadingBytes: [UInt8]
    }

    /// What the whole body held, or why it could not be read.
    struct Received: Sendable {
        var fields: [String: String]
        var files: [FilePart]
        /// Set when the body is not a well-formed multipart body.
        var malformed: String?
    }

    static let maximumFieldSize = 1 << 20
    static let maximumHeaderSize = 16 << 10
    static let maximumParts = 64
    static let leadingByteCount = 16

    private enum Phase: Sendable {
        /// Before the first delimiter (the preamble, ignored).
        case preamble
        /// Reading a part's headers, up to the blank line.
        case headers
        /// Reading a part's content.
        case content
        /// After the closing delimiter (the epilogue, ignored).
        case done
        case failed
    }

    private let delimiter: [UInt8]
    private var pending: [UInt8] = []
    private var phase = Phase.preamble
    private var fields: [String: String] = [:]
    private var files: [FilePart] = []
    private var malformed: String?
    private var partCount = 0
    // The part being read.
    private var partName = ""
    private var partFile: FilePart?
    private var partText: [UInt8] = []

    /// A receiver for the body of a request whose `Content-Type` is `contentType`, or nil
    /// when that is not `multipart/form-data` with a boundary.
    init?(contentType: String) {
        let pieces = contentType.split(separator: ";").map { $0.trimmed(" \t") }
        guard pieces.first?.lowercased() == "multipart/form-data" else { return nil }
        guard let parameter = pieces.dropFirst().first(where: { $0.lowercased().hasPrefix("boundary=") }) else { return nil }
        var boundary = Substring(parameter.dropFirst("boundary=".count))
        if boundary.hasPrefix("\""), boundary.hasSuffix("\""), boundary.count >= 2 { boundary = boundary.dropFirst().dropLast() }
        guard (1...70).contains(boundary.utf8.count) else { return nil }
        // "\r\n--boundary": the preamble's leading CRLF is supplied with the first chunk.
        delimiter = Array("\r\n--\(boundary)".utf8)
        pending = [13, 10]
    }

    /// Takes the next bytes of the body.
    mutating func feed(_ bytes: [UInt8]) {
        guard phase != .done, phase != .failed else { return }
        pending += bytes
        process()
    }

    /// The body's parts, once it has all arrived.
    mutating func finish() -> Received {
        if malformed == nil, phase != .done { malformed = "the multipart body ends before its closing boundary" }
        return Received(fields: fields, files: files, malformed: malformed)
    }

    private mutating func fail(_ message: String) {
        malformed = message
        phase = .failed
        pending = []
    }

    private mutating func process() {
        while true {
            switch phase {
            case .preamble, .content:
                guard let found = Self.find(delimiter, in: pending) else {
                    // Keep what could still be the start of a delimiter.
                    let keep = min(pending.count, delimiter.count - 1)
                    if phase == .content { take(pending[..<(pending.count - keep)]) }
                    pending.removeFirst(pending.count - keep)
                    return
                }
                // After the delimiter: "--" closes the body, CRLF starts a part.
                let after = found + delimiter.count
                guard pending.count >= after + 2 else { return }
                if phase == .content {
                    take(pending[..<found])
                    endPart()
                    guard phase != .failed else { return }
                }
                if pending[after] == UInt8(ascii: "-"), pending[after + 1] == UInt8(ascii: "-") {
                    phase = .done
                    pending = []
                    return
                }
                guard pending[after] == 13, pending[after + 1] == 10 else { return fail("a boundary is followed by neither CRLF nor --") }
                pending.removeFirst(after + 2)
                partCount += 1
                guard partCount <= Self.maximumParts else { return fail("more than \(Self.maximumParts) parts") }
                phase = .headers
            case .headers:
                guard let end = Self.find([13, 10, 13, 10], in: pending) else {
                    if pending.count > Self.maximumHeaderSize { fail("a part's headers are longer than \(Self.maximumHeaderSize) bytes") }
                    return
                }
                startPart(headers: String(decoding: pending[..<end], as: UTF8.self))
                guard phase != .failed else { return }
                // The content starts after the blank line; the delimiter that ends it
                // begins with the CRLF before "--", so it is never part of the content.
                pending.removeFirst(end + 4)
                phase = .content
            case .done, .failed:
                return
            }
        }
    }

    private mutating func startPart(headers: String) {
        var disposition: String?
        var contentType: String?
        for line in headers.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmed(" \t")
            if name == "content-disposition" { disposition = value } else if name == "content-type" { contentType = value }
        }
        guard let disposition, disposition.lowercased().hasPrefix("form-data") else { return fail("a part has no Content-Disposition: form-data") }
        let parameters = Self.parameters(disposition)
        guard let name = parameters["name"], !name.isEmpty else { return fail("a part has no name") }
        partName = name
        partText = []
        partFile = parameters["filename"].map { FilePart(name: name, fileName: $0, contentType: contentType, size: 0, leadingBytes: []) }
    }

    private mutating func take(_ bytes: ArraySlice<UInt8>) {
        guard !bytes.isEmpty else { return }
        if var file = partFile {
            file.size += Int64(bytes.count)
            if file.leadingBytes.count < Self.leadingByteCount { file.leadingBytes += bytes.prefix(Self.leadingByteCount - file.leadingBytes.count) }
            partFile = file
        } else {
            guard partText.count + bytes.count <= Self.maximumFieldSize else { return fail("the field '\(partName)' is longer than \(Self.maximumFieldSize) bytes") }
            partText += bytes
        }
    }

    private mutating func endPart() {
        if let file = partFile {
            files.append(file)
        } else {
            fields[partName] = String(decoding: partText, as: UTF8.self)
        }
        partFile = nil
        partText = []
    }

    /// `name="file"; filename="a.png"`: quoted values with `\"` escapes, or tokens.
    static func parameters(_ disposition: String) -> [String: String] {
        var result: [String: String] = [:]
        var rest = Substring(disposition)
        while let semicolon = rest.firstIndex(of: ";") {
            rest = rest[rest.index(after: semicolon)...].drop { $0 == " " || $0 == "\t" }
            guard let equals = rest.firstIndex(of: "=") else { break }
            let name = rest[..<equals].lowercased()
            rest = rest[rest.index(after: equals)...]
            var value = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                while let character = rest.first, character != "\"" {
                    rest = rest.dropFirst()
                    if character == "\\", let next = rest.first {
                        value.append(next)
                        rest = rest.dropFirst()
                    } else {
                        value.append(character)
                    }
                }
                rest = rest.dropFirst()
            } else {
                let end = rest.firstIndex(of: ";") ?? rest.endIndex
                value = rest[..<end].trimmed(" \t")
                rest = rest[end...]
            }
            result[name] = value
        }
        return result
    }

    /// The first index of `needle` in `haystack`, found with memchr and memcmp (a 50 MB body
    /// is searched at memory speed, not byte by byte).
    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        return haystack.withUnsafeBytes { hay -> Int? in
            needle.withUnsafeBytes { pattern -> Int? in
                let base = hay.baseAddress!
                let first = Int32(needle[0])
                var start = 0
                let last = hay.count - needle.count
                while start <= last {
                    guard let hit = memchr(base + start, first, last - start + 1) else { return nil }
                    let index = base.distance(to: UnsafeRawPointer(hit))
                    if memcmp(base + index, pattern.baseAddress!, needle.count) == 0 { return index }
                    start = index + 1
                }
                return nil
            }
        }
    }
}

extension StringProtocol {
    fileprivate func trimmed(_ set: String) -> String {
        var text = Substring(self)
        while let first = text.first, set.contains(first) { text = text.dropFirst() }
        while let last = text.last, set.contains(last) { text = text.dropLast() }
        return String(text)
    }
}
