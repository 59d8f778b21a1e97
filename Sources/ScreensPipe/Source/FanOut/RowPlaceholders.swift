import ScreensBus

/// `${name.field}` placeholders in a child source: found when the file is loaded (each
/// must name a parent the source can see), resolved against each parent row when its
/// child list is built.
///
/// Escaping follows where the value lands: in `path` or `url` it becomes one path segment,
/// percent-encoded per RFC 3986 (everything but unreserved characters, so `/`, `?`, `#`
/// and `%` stay data), and a value of `.`, `..` or nothing there is an error (a dot
/// segment would move the request); anywhere else (query, params, headers) the value is
/// the text the wire format then encodes as it encodes every value. A scalar that is one
/// placeholder keeps the parent value's JSON type (a number stays a number).
enum RowPlaceholders {
    /// One `${...}` in a scalar.
    struct Reference: Sendable, Hashable {
        /// The UTF-8 range of `${...}` in the scalar's text.
        var range: Range<Int>
        /// The parent's `as` name.
        var name: String
        /// The field in the parent row.
        var field: FieldPath
    }

    /// The longest parent value a placeholder takes, in UTF-8 bytes: ids and names are
    /// short, and a hostile parent row must not blow up URLs and cache keys.
    static let maximumValueBytes = 2048

    /// Keys whose values are URLs or paths: placeholders in them are path segments.
    static let pathKeys: Set<String> = ["path", "url"]

    /// The row placeholders in `text`: `${` then a field path whose first step is a name
    /// (no `:-` or `?`: those are environment references, already expanded).
    static func references(in text: String) throws(ScreensPipeError) -> [Reference] {
        let bytes = Array(text.utf8)
        var references: [Reference] = []
        var index = 0
        while index + 1 < bytes.count {
            guard bytes[index] == UInt8(ascii: "$"), bytes[index + 1] == UInt8(ascii: "{") else {
                index += 1
                continue
            }
            guard let close = bytes[(index + 2)...].firstIndex(of: UInt8(ascii: "}")) else {
                throw ScreensPipeError.configuration("unterminated '${' in '\(text)'")
            }
            let inside = String(decoding: bytes[(index + 2)..<close], as: UTF8.self)
            let path = try FieldPath(inside)
            guard case .key(let name) = path.components[0], path.components.count > 1 else {
                throw ScreensPipeError.configuration(
                    "'${\(inside)}' is not a parent field: write ${name.field}, where name is a for-each 'as'")
            }
            references.append(Reference(range: index..<(close + 1), name: name, field: FieldPath(components: Array(path.components.dropFirst()))))
            index = close + 1
        }
        return references
    }

    /// Every placeholder of `node` with the scalar it sits in.
    static func scalars(in node: YAMLNode, visit: (YAMLScalar) -> Void) {
        switch node {
        case .scalar(let scalar) where scalar.text.utf8.contains(UInt8(ascii: "$")): visit(scalar)
        case .scalar: break
        case .mapping(let mapping): for pair in mapping.pairs { scalars(in: pair.value, visit: visit) }
        case .sequence(let sequence): for item in sequence.items { scalars(in: item, visit: visit) }
        }
    }

    /// `template` with every placeholder replaced from `lineage`; an error names the
    /// parent row and the field.
    static func resolve(_ template: YAMLMapping, lineage: Lineage) throws(ScreensPipeError) -> YAMLMapping {
        var resolved = template
        for index in resolved.pairs.indices {
            let isPath = pathKeys.contains(resolved.pairs[index].key.text)
            try resolve(&resolved.pairs[index].value, lineage: lineage, asPathSegment: isPath)
        }
        return resolved
    }

    private static func resolve(_ node: inout YAMLNode, lineage: Lineage, asPathSegment: Bool) throws(ScreensPipeError) {
        switch node {
        case .scalar(var scalar):
            guard scalar.text.utf8.contains(UInt8(ascii: "$")) else { return }
            let references = try references(in: scalar.text)
            guard !references.isEmpty else { return }
            let bytes = Array(scalar.text.utf8)
            var output: [UInt8] = []
            var position = 0
            var wholeValue: JSONValue?
            for reference in references {
                output += bytes[position..<reference.range.lowerBound]
                let value = try value(of: reference, in: lineage)
                output += Array(try text(of: value, reference: reference, asPathSegment: asPathSegment).utf8)
                position = reference.range.upperBound
                if references.count == 1, reference.range == 0..<bytes.count { wholeValue = value }
            }
            output += bytes[position...]
            scalar.text = String(decoding: output, as: UTF8.self)
            if !asPathSegment, let wholeValue {
                // One placeholder and nothing else keeps the parent value's type: a string
                // id stays a string even when it looks like a number.
                if case .string = wholeValue { scalar.style = .doubleQuoted } else { scalar.style = .plain }
            } else {
                scalar.style = .doubleQuoted
            }
            node = .scalar(scalar)
        case .mapping(var mapping):
            for index in mapping.pairs.indices { try resolve(&mapping.pairs[index].value, lineage: lineage, asPathSegment: asPathSegment) }
            node = .mapping(mapping)
        case .sequence(var sequence):
            for index in sequence.items.indices { try resolve(&sequence.items[index], lineage: lineage, asPathSegment: asPathSegment) }
            node = .sequence(sequence)
        }
    }

    private static func value(of reference: Reference, in lineage: Lineage) throws(ScreensPipeError) -> JSONValue {
        guard let frame = lineage.frame(named: reference.name) else {
            throw ScreensPipeError.configuration("'${\(reference.name).\(reference.field)}' names no parent of this list")
        }
        guard let value = reference.field.resolve(in: frame.value) else {
            throw ScreensPipeError.malformedResponse(
                "the parent row has no field '\(reference.field)' for ${\(reference.name).\(reference.field)}")
        }
        return value
    }

    /// The text a parent value puts in place of its placeholder.
    private static func text(
        of value: JSONValue, reference: Reference, asPathSegment: Bool
    ) throws(ScreensPipeError) -> String {
        let placeholder = "${\(reference.name).\(reference.field)}"
        // The message is named with the parent rows by the caller (Lineage.naming).
        func refuse(_ why: String) -> ScreensPipeError {
            .malformedResponse("the value for \(placeholder) \(why)")
        }
        let text: String
        switch value {
        case .string(let string): text = string
        case .int(let number): text = String(number)
        case .number(let literal): text = literal
        case .double: text = value.jsonString
        case .bool(let flag): text = flag ? "true" : "false"
        case .null: throw refuse("is null")
        case .array: throw refuse("is an array, not a scalar")
        case .object: throw refuse("is an object, not a scalar")
        }
        guard text.utf8.count <= maximumValueBytes else {
            throw refuse("is \(text.utf8.count) bytes long, more than the \(maximumValueBytes) a placeholder takes")
        }
        guard !text.utf8.contains(0) else { throw refuse("holds a NUL character") }
        guard asPathSegment else { return text }
        guard !text.isEmpty, text != ".", text != ".." else {
            throw refuse("is '\(text)', which as a path segment would change the path")
        }
        return percentEncodedSegment(text)
    }

    /// `text` with every byte but RFC 3986's unreserved characters percent-encoded.
    static func percentEncodedSegment(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var output: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                output.append(byte)
            default:
                output += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
