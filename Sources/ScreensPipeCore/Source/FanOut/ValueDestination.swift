/// Where a value interpolated into a request lands, and the one rule for each place. Every
/// parent value a `${name.field}` placeholder puts into a source passes here
/// (``RowPlaceholders``), and so does every header value a pipeline file writes
/// (`SpecDecoder.decodeHeaders`):
///
/// - ``header``: one line of text. CR, LF, NUL and every other control character (C0, DEL,
///   C1; a CRLF pair included) are refused: a line break would end the field and start a
///   smuggled header, or a whole second request.
/// - ``pathSegment`` (`path`, `url`, `server`): one path segment, percent-encoded by
///   ``URLText/encode(_:)`` (everything but RFC 3986's unreserved characters), so `/`, `?`,
///   `#`, `%` and `\` stay data; `.`, `..` and nothing are refused, since a dot segment
///   would move the request.
/// - ``query``: the text, percent-encoded exactly once when the URL is built
///   (``URLText/appending(query:to:)``).
/// - ``body``: the text, JSON-escaped when the body is written (JSON-WS `params`, REST `body`).
/// - ``setting``: any other key of a source (`records`, `total`...): the text, checked by the
///   decoder as a written value is.
///
/// Values are substituted once and never expanded again: a `${` in a value is text.
enum ValueDestination: Sendable, Hashable {
    case header
    case pathSegment
    case query
    case body
    case setting

    /// The destination of the values under the source key `key` (a top-level key of `source:`).
    init(sourceKey key: String) {
        switch key {
        case "headers", "auth": self = .header
        case "path", "url", "server": self = .pathSegment
        case "query": self = .query
        case "body", "params", "rows", "count": self = .body
        default: self = .setting
        }
    }

    /// Why a value may not enter this destination.
    struct Refusal: Error, Sendable, Equatable {
        /// Completes "the value ...": `holds a control character (U+000D)...`.
        var reason: String
    }

    /// The text `value` becomes in this destination, or why it may not go there.
    func admit(_ value: String) throws(Refusal) -> String {
        switch self {
        case .header:
            if let control = Self.firstControlCharacter(in: value) {
                throw Refusal(
                    reason: "holds the control character \(Self.codePoint(control)), which would break the header line (a header value is one line of text)")
            }
            return value
        case .pathSegment:
            guard !value.isEmpty, !URLText.isDotSegment(value) else {
                throw Refusal(reason: "is '\(value)', which as a path segment would change the path")
            }
            return URLText.encode(value)
        case .query, .body, .setting:
            return value
        }
    }

    /// Why the scalar `written` (as the file has it) may not become `resolved` (with the
    /// parent values in): the paginator fills `"{offset}"`, `"{limit}"`, `"{pageSize}"`,
    /// `"{page}"` and `"{cursor}"` in a body, and `{cursor}` in a query value, after the
    /// placeholders are resolved, so a parent value that makes one would be expanded a second
    /// time. Refused rather than sent changed; nil when the template wrote it itself.
    func pagePlaceholderRefusal(written: String, resolved: String) -> Refusal? {
        switch self {
        case .body:
            guard let token = RESTRequestBody.Placeholder(rawValue: resolved), RESTRequestBody.Placeholder(rawValue: written) == nil else { return nil }
            return Refusal(reason: "makes the body value '\(token.rawValue)', which the paginator would replace with the page's value")
        case .query:
            let token = IncrementalPushDown.placeholder
            guard resolved.contains(token), !written.contains(token) else { return nil }
            return Refusal(reason: "makes a query value holding '\(token)', which an incremental run would replace with its cursor")
        case .header, .pathSegment, .setting:
            return nil
        }
    }

    /// The first control character of `text`: C0 (NUL, CR, LF, TAB, ESC...), DEL or C1.
    static func firstControlCharacter(in text: String) -> Unicode.Scalar? {
        text.unicodeScalars.first { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }

    private static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
