/// The small XML reader behind Liferay's localized text and web content documents.
///
/// Liferay stores localized fields and journal content as XML strings inside JSON:
/// `<root available-locales="en_US,es_ES" default-locale="en_US"><Title language-id="es_ES">Hola</Title></root>`.
/// Those documents use elements, attributes, entities and CDATA and nothing else, so this
/// reads exactly that (plus the prolog, comments and a DOCTYPE, which it skips) instead of
/// pulling in an XML stack. Anything it cannot read makes the caller keep the raw string.
struct XMLElement: Sendable, Equatable {
    var name: String
    var attributes: [(name: String, value: String)]
    var children: [XMLElement]
    /// The element's own text (entities decoded, CDATA unwrapped), children's text excluded.
    var text: String

    func attribute(_ name: String) -> String? {
        attributes.first { $0.name == name }?.value
    }

    static func == (lhs: XMLElement, rhs: XMLElement) -> Bool {
        lhs.name == rhs.name && lhs.children == rhs.children && lhs.text == rhs.text
            && lhs.attributes.elementsEqual(rhs.attributes) { $0.name == $1.name && $0.value == $1.value }
    }
}

struct XMLSyntaxError: Error, Equatable {
    var offset: Int
    var message: String
}

/// A recursive-descent reader of one XML document over UTF-8 bytes.
///
/// The documents come from servers, so recursion is bounded: elements nested deeper than
/// ``maximumDepth`` are a syntax error (the caller keeps the raw string), never a stack
/// overflow. Liferay's own documents nest three or four levels.
struct XMLReader {
    /// The deepest element nesting read; deeper is an ``XMLSyntaxError``.
    static let maximumDepth = 256

    private let bytes: [UInt8]
    private var position = 0

    /// Whether `text` looks like one of Liferay's XML documents, cheaply, before parsing.
    static func looksLikeLiferayDocument(_ text: String) -> Bool {
        var utf8 = Substring(text).utf8.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF }
        if utf8.starts(with: "<?xml".utf8) {
            guard let close = utf8.firstRange(of: "?>".utf8) else { return false }
            utf8 = utf8[close.upperBound...].drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        }
        return utf8.starts(with: "<root".utf8)
    }

    /// Parses a whole document and returns its root element.
    static func parse(_ text: String) throws(XMLSyntaxError) -> XMLElement {
        var reader = XMLReader(bytes: Array(text.utf8))
        if reader.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { reader.position = 3 }
        try reader.skipMisc()
        let root = try reader.element(depth: 1)
        try reader.skipMisc()
        guard reader.position == reader.bytes.count else { throw reader.error("content after the root element") }
        return root
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func error(_ message: String) -> XMLSyntaxError { XMLSyntaxError(offset: position, message: message) }

    private func peek(_ literal: String) -> Bool {
        bytes[position...].starts(with: literal.utf8)
    }

    private mutating func skipWhitespace() {
        while position < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[position]) { position += 1 }
    }

    /// Skips the prolog, comments, processing instructions and a DOCTYPE around the root.
    private mutating func skipMisc() throws(XMLSyntaxError) {
        while true {
            skipWhitespace()
            if peek("<?") {
                try skip(past: "?>")
            } else if peek("<!--") {
                try skip(past: "-->")
            } else if peek("<!DOCTYPE") {
                try skip(past: ">")
            } else {
                return
            }
        }
    }

    private mutating func skip(past terminator: String) throws(XMLSyntaxError) {
        guard let range = bytes[position...].firstRange(of: terminator.utf8) else {
            throw error("missing '\(terminator)'")
        }
        position = range.upperBound
    }

    private mutating func name() throws(XMLSyntaxError) -> String {
        let start = position
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09, UInt8(ascii: "/"), UInt8(ascii: ">"), UInt8(ascii: "="), UInt8(ascii: "<"): break
            default:
                position += 1
                continue
            }
            break
        }
        guard position > start else { throw error("expected a name") }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    /// An element, with `position` on its `<`, at nesting level `depth` (the root is 1).
    private mutating func element(depth: Int) throws(XMLSyntaxError) -> XMLElement {
        guard depth <= Self.maximumDepth else { throw error("elements nested deeper than \(Self.maximumDepth) levels") }
        guard position < bytes.count, bytes[position] == UInt8(ascii: "<") else { throw error("expected '<'") }
        position += 1
        var node = XMLElement(name: try name(), attributes: [], children: [], text: "")
        while true {
            skipWhitespace()
            guard position < bytes.count else { throw error("unterminated tag <\(node.name)>") }
            if peek("/>") {
                position += 2
                return node
            }
            if bytes[position] == UInt8(ascii: ">") {
                position += 1
                break
            }
            let attributeName = try name()
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "=") else { throw error("expected '=' after \(attributeName)") }
            position += 1
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'") else {
                throw error("expected a quoted value for \(attributeName)")
            }
            let quote = bytes[position]
            position += 1
            let start = position
            while position < bytes.count, bytes[position] != quote { position += 1 }
            guard position < bytes.count else { throw error("unterminated attribute value") }
            node.attributes.append((attributeName, try Self.decodeEntities(bytes[start..<position], at: start)))
            position += 1
        }
        var text: [UInt8] = []
        while true {
            guard position < bytes.count else { throw error("missing </\(node.name)>") }
            if peek("</") {
                position += 2
                let closing = try name()
                guard closing == node.name else { throw error("</\(closing)> closes <\(node.name)>") }
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ">") else { throw error("expected '>'") }
                position += 1
                node.text = String(decoding: text, as: UTF8.self)
                return node
            } else if peek("<![CDATA[") {
                position += 9
                guard let end = bytes[position...].firstRange(of: "]]>".utf8) else { throw error("unterminated CDATA") }
                text.append(contentsOf: bytes[position..<end.lowerBound])
                position = end.upperBound
            } else if peek("<!--") {
                try skip(past: "-->")
            } else if peek("<?") {
                try skip(past: "?>")
            } else if bytes[position] == UInt8(ascii: "<") {
                node.children.append(try element(depth: depth + 1))
            } else {
                let start = position
                while position < bytes.count, bytes[position] != UInt8(ascii: "<") { position += 1 }
                text.append(contentsOf: try Self.decodeEntities(bytes[start..<position], at: start).utf8)
            }
        }
    }

    /// Decodes `&amp; &lt; &gt; &quot; &apos; &#NN; &#xNN;` in a run of text.
    static func decodeEntities(_ run: ArraySlice<UInt8>, at offset: Int) throws(XMLSyntaxError) -> String {
        guard run.contains(UInt8(ascii: "&")) else { return String(decoding: run, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(run.count)
        var index = run.startIndex
        while index < run.endIndex {
            guard run[index] == UInt8(ascii: "&") else {
                out.append(run[index])
                index += 1
                continue
            }
            guard let semicolon = run[index...].firstIndex(of: UInt8(ascii: ";")), semicolon - index <= 12 else {
                throw XMLSyntaxError(offset: index, message: "unterminated entity")
            }
            let entity = String(decoding: run[(index + 1)..<semicolon], as: UTF8.self)
            switch entity {
            case "amp": out.append(UInt8(ascii: "&"))
            case "lt": out.append(UInt8(ascii: "<"))
            case "gt": out.append(UInt8(ascii: ">"))
            case "quot": out.append(UInt8(ascii: "\""))
            case "apos": out.append(UInt8(ascii: "'"))
            default:
                let number: UInt32? =
                    if entity.hasPrefix("#x") || entity.hasPrefix("#X") { UInt32(entity.dropFirst(2), radix: 16) }
                    else if entity.hasPrefix("#") { UInt32(entity.dropFirst(), radix: 10) }
                    else { nil }
                guard let number, let scalar = Unicode.Scalar(number) else {
                    throw XMLSyntaxError(offset: index, message: "unknown entity &\(entity);")
                }
                out.append(contentsOf: String(Character(scalar)).utf8)
            }
            index = semicolon + 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
