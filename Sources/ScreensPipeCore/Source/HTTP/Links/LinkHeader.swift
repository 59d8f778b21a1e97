/// One link of an RFC 8288 `Link` header field: `<target>; rel="next"; title="..."`.
struct LinkValue: Hashable, Sendable {
    /// The target as written between `<` and `>`, not yet resolved.
    var target: String
    /// The relation types of the first `rel` parameter, lower-cased (`rel="next last"` is two).
    var relations: [String]
    /// Every parameter in order, names lower-cased, quoted values unquoted; a repeated `rel`
    /// is kept here but ignored by ``relations`` (RFC 8288 §3.3: occurrences after the first).
    var parameters: [(name: String, value: String)]

    static func == (a: LinkValue, b: LinkValue) -> Bool {
        a.target == b.target && a.relations == b.relations
            && a.parameters.map(\.name) == b.parameters.map(\.name) && a.parameters.map(\.value) == b.parameters.map(\.value)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(target)
        hasher.combine(relations)
    }

    /// The value of the first parameter named `name` (lower case), if any.
    func parameter(_ name: String) -> String? {
        parameters.first { $0.name == name }?.value
    }
}

/// A parser of `Link` header fields (RFC 8288 §3 and the algorithm of its Appendix B).
///
/// The grammar, in short: `#link-value`, where `link-value = "<" URI-Reference ">"
/// *( OWS ";" OWS link-param )` and `link-param = token BWS [ "=" BWS ( token / quoted-string ) ]`.
/// So commas and semicolons inside `<...>` or inside a quoted string separate nothing;
/// `rel` holds space-separated relation types, compared case-insensitively; only the
/// first `rel` parameter of a link counts. A link-value that does not start with `<` (or
/// whose `<` is never closed) is skipped up to the next comma that is outside quotes and
/// angle brackets, so one malformed member cannot make the parser read a target out of
/// another member's parameters.
enum LinkHeader {
    /// Every link of one header field value, in order.
    static func parse(_ field: String) -> [LinkValue] {
        var scanner = Scanner(Array(field.utf8))
        var links: [LinkValue] = []
        while true {
            scanner.skip { $0 == .space || $0 == .tab || $0 == .comma }
            guard let first = scanner.peek() else { return links }
            guard first == .lessThan, let target = scanner.angleBracketed() else {
                scanner.skipToTopLevelComma()
                continue
            }
            let parameters = scanner.parameters()
            // Anything left before the next comma is not part of the grammar: skip it.
            scanner.skipToTopLevelComma()
            let relations = parameters.first { $0.name == "rel" }.map { rel in
                rel.value.split { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }.map { $0.lowercased() }
            } ?? []
            links.append(LinkValue(target: target, relations: relations, parameters: parameters))
        }
    }

    /// Every link of every field (a response may repeat the `Link` field), in order.
    static func parse(fields: [String]) -> [LinkValue] {
        fields.flatMap(parse)
    }

    /// The target of the first link whose relation types include `relation`, unresolved.
    ///
    /// A link with an `anchor` parameter is skipped: its relation is about the anchored
    /// resource (RFC 8288 §3.2), not about the response it came with.
    static func target(relation: String, in fields: [String]) -> String? {
        let wanted = relation.lowercased()
        return parse(fields: fields).first { $0.relations.contains(wanted) && $0.parameter("anchor") == nil }?.target
    }

    /// The position-keeping reader behind ``parse(_:)``; works on UTF-8 bytes so that a
    /// header of any content is read in one pass and bounded time.
    private struct Scanner {
        let bytes: [UInt8]
        var position = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        func peek() -> UInt8? { position < bytes.count ? bytes[position] : nil }

        mutating func skip(while predicate: (UInt8) -> Bool) {
            while position < bytes.count, predicate(bytes[position]) { position += 1 }
        }

        mutating func skipWhitespace() { skip { $0 == .space || $0 == .tab } }

        /// `<...>` at the position: the text between, or nil (and the position unchanged)
        /// when the `>` is missing.
        mutating func angleBracketed() -> String? {
            let start = position + 1
            guard let close = bytes[start...].firstIndex(of: .greaterThan) else { return nil }
            position = close + 1
            return String(decoding: bytes[start..<close], as: UTF8.self)
        }

        /// Moves to the next comma outside quoted strings and angle brackets (or the end).
        mutating func skipToTopLevelComma() {
            var inQuotes = false
            var inBrackets = false
            while position < bytes.count {
                let byte = bytes[position]
                if inQuotes {
                    if byte == .backslash { position += 1 } else if byte == .quote { inQuotes = false }
                } else if inBrackets {
                    if byte == .greaterThan { inBrackets = false }
                } else if byte == .quote {
                    inQuotes = true
                } else if byte == .lessThan {
                    inBrackets = true
                } else if byte == .comma {
                    return
                }
                position += 1
            }
        }

        /// `*( OWS ";" OWS link-param )`.
        mutating func parameters() -> [(name: String, value: String)] {
            var parameters: [(name: String, value: String)] = []
            while true {
                skipWhitespace()
                guard peek() == .semicolon else { return parameters }
                position += 1
                skipWhitespace()
                let nameStart = position
                skip { $0 != .equals && $0 != .semicolon && $0 != .comma }
                let name = String(decoding: bytes[nameStart..<position], as: UTF8.self)
                    .trimmingLinkWhitespace().lowercased()
                var value = ""
                if peek() == .equals {
                    position += 1
                    skipWhitespace()
                    if peek() == .quote {
                        value = quotedString()
                    } else {
                        let valueStart = position
                        skip { $0 != .semicolon && $0 != .comma }
                        value = String(decoding: bytes[valueStart..<position], as: UTF8.self).trimmingLinkWhitespace()
                    }
                }
                // `<x>;` (an empty parameter) is tolerated, as the published parsers do.
                if !name.isEmpty { parameters.append((name, value)) }
            }
        }

        /// A quoted-string (RFC 9110 §5.6.4) at the position, unquoted: `\x` stands for `x`.
        /// An unterminated string runs to the end of the field.
        mutating func quotedString() -> String {
            position += 1
            var value: [UInt8] = []
            while position < bytes.count {
                let byte = bytes[position]
                position += 1
                if byte == .quote { break }
                if byte == .backslash, position < bytes.count {
                    value.append(bytes[position])
                    position += 1
                } else {
                    value.append(byte)
                }
            }
            return String(decoding: value, as: UTF8.self)
        }
    }
}

extension UInt8 {
    fileprivate static let space = UInt8(ascii: " ")
    fileprivate static let tab = UInt8(ascii: "\t")
    fileprivate static let comma = UInt8(ascii: ",")
    fileprivate static let semicolon = UInt8(ascii: ";")
    fileprivate static let equals = UInt8(ascii: "=")
    fileprivate static let quote = UInt8(ascii: "\"")
    fileprivate static let backslash = UInt8(ascii: "\\")
    fileprivate static let lessThan = UInt8(ascii: "<")
    fileprivate static let greaterThan = UInt8(ascii: ">")
}

extension String {
    fileprivate func trimmingLinkWhitespace() -> String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return String(text)
    }
}
