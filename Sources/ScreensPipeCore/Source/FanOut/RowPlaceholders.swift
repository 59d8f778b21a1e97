import ScreensBus

/// `${name.field}` placeholders in a child source: found when the file is loaded (each
/// must name a parent the source can see), resolved against each parent row when its
/// child list is built.
///
/// What a value may hold and how it is escaped follows where it lands, by the source key it
/// sits under: one rule per destination, all in ``ValueDestination`` (a header refuses
/// control characters, a path segment is percent-encoded, query and body values are encoded
/// by the wire format once). A value is substituted once and never read for placeholders
/// again. A scalar that is one placeholder keeps the parent value's JSON type (a number
/// stays a number).
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
            let destination = ValueDestination(sourceKey: resolved.pairs[index].key.text)
            try resolve(&resolved.pairs[index].value, lineage: lineage, into: destination)
        }
        return resolved
    }

    private static func resolve(_ node: inout YAMLNode, lineage: Lineage, into destination: ValueDestination) throws(ScreensPipeError) {
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
                output += Array(try text(of: value, reference: reference, into: destination).utf8)
                position = reference.range.upperBound
                if references.count == 1, reference.range == 0..<bytes.count { wholeValue = value }
            }
            output += bytes[position...]
            let resolvedText = String(decoding: output, as: UTF8.self)
            if let refusal = destination.pagePlaceholderRefusal(written: scalar.text, resolved: resolvedText) {
                let names = references.map { "${\($0.name).\($0.field)}" }.joined(separator: ", ")
                throw ScreensPipeError.malformedResponse("the value for \(names) \(refusal.reason)")
            }
            scalar.text = resolvedText
            if destination != .pathSegment, let wholeValue {
                // One placeholder and nothing else keeps the parent value's type: a string
                // id stays a string even when it looks like a number.
                if case .string = wholeValue { scalar.style = .doubleQuoted } else { scalar.style = .plain }
            } else {
                scalar.style = .doubleQuoted
            }
            node = .scalar(scalar)
        case .mapping(var mapping):
            for index in mapping.pairs.indices { try resolve(&mapping.pairs[index].value, lineage: lineage, into: destination) }
            node = .mapping(mapping)
        case .sequence(var sequence):
            for index in sequence.items.indices { try resolve(&sequence.items[index], lineage: lineage, into: destination) }
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
        of value: JSONValue, reference: Reference, into destination: ValueDestination
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
        do throws(ValueDestination.Refusal) {
            return try destination.admit(text)
        } catch {
            throw refuse(error.reason)
        }
    }
}
