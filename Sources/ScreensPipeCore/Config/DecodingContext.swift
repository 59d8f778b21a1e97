import ScreensBus

/// Collects every error of one pipeline file while the decoder goes on, and reads typed
/// values from scalar nodes with the messages users see.
package final class DecodingContext {
    private(set) var errors: [ScreensPipeError] = []

    package func fail(_ message: String, at location: SourceLocation) {
        errors.append(ScreensPipeError.configuration(message, at: location))
    }

    func append(_ error: ScreensPipeError) { errors.append(error) }

    private func expected(_ what: String, for key: String, found node: YAMLNode) {
        fail("expected \(what) for '\(key)', found \(node.foundDescription)", at: node.location)
    }

    /// Any scalar's text (`12345` is a fine password); null and collections are errors.
    func string(_ node: YAMLNode, key: String) -> String? {
        guard case .scalar(let scalar) = node, !node.isNull else {
            expected("a string", for: key, found: node)
            return nil
        }
        return scalar.text
    }

    /// A non-empty string.
    package func nonEmptyString(_ node: YAMLNode, key: String) -> String? {
        guard let text = string(node, key: key) else { return nil }
        if text.isEmpty { fail("'\(key)' must not be empty", at: node.location) }
        return text.isEmpty ? nil : text
    }

    func int(_ node: YAMLNode, key: String, atLeast minimum: Int? = nil, atMost maximum: Int? = nil) -> Int? {
        if case .scalar(let scalar) = node, case .bigInteger(let text) = scalar.resolved, let minimum, let maximum {
            // Past 64 bits: out of range, said as such rather than "not an integer".
            fail("'\(key)' must be between \(minimum) and \(maximum), found \(text)", at: node.location)
            return nil
        }
        guard case .scalar(let scalar) = node, case .int(let value) = scalar.resolved, let int = Int(exactly: value) else {
            expected("an integer", for: key, found: node)
            return nil
        }
        if let minimum, let maximum, !(minimum...maximum).contains(int) {
            fail("'\(key)' must be between \(minimum) and \(maximum), found \(int)", at: node.location)
            return nil
        }
        if let minimum, int < minimum {
            fail("'\(key)' must be at least \(minimum), found \(int)", at: node.location)
            return nil
        }
        return int
    }

    func bool(_ node: YAMLNode, key: String) -> Bool? {
        guard case .scalar(let scalar) = node else {
            expected("true or false", for: key, found: node)
            return nil
        }
        if case .bool(let value) = scalar.resolved { return value }
        let yaml11 = ["yes", "no", "on", "off", "y", "n"]
        if scalar.style == .plain, yaml11.contains(scalar.text.lowercased()) {
            fail(
                "expected true or false for '\(key)', found '\(scalar.text)' (YAML 1.1 booleans are not accepted; write true or false)",
                at: node.location)
            return nil
        }
        expected("true or false", for: key, found: node)
        return nil
    }

    /// A duration of at most `maximum` (and, when `positive`, at least a millisecond: libcurl
    /// reads a zero timeout as "none").
    func duration(_ node: YAMLNode, key: String, positive: Bool = true, atMost maximum: Duration) -> Duration? {
        guard case .scalar(let scalar) = node, !node.isNull, let milliseconds = ConfigUnits.milliseconds(scalar.text) else {
            expected("a duration (such as 15s, 200ms, 1h30m; units \(ConfigUnits.durationUnits))", for: key, found: node)
            return nil
        }
        let maximumText = ConfigUnitText.duration(maximum)
        guard milliseconds <= Double(maximum.components.seconds) * 1000 else {
            fail("'\(key)' must be at most \(maximumText), found \(scalar.text)", at: node.location)
            return nil
        }
        if positive, milliseconds <= 0 {
            fail("'\(key)' must be longer than zero", at: node.location)
            return nil
        }
        if positive, milliseconds < 1 {
            fail("'\(key)' must be at least 1ms, found \(scalar.text)", at: node.location)
            return nil
        }
        return .milliseconds(milliseconds)
    }

    func size(_ node: YAMLNode, key: String) -> Int? {
        guard case .scalar(let scalar) = node, !node.isNull, let size = ConfigUnits.size(scalar.text) else {
            expected("a size (such as 64MiB, 512KiB, 1MB; units \(ConfigUnits.sizeUnits))", for: key, found: node)
            return nil
        }
        if size < 1 {
            fail("'\(key)' must be at least 1 byte", at: node.location)
            return nil
        }
        return size
    }

    /// One of a fixed set of names; the message lists them all.
    func choice<Value>(_ node: YAMLNode, key: String, _ choices: KeyValuePairs<String, Value>) -> Value? {
        choice(node, key: key, names: choices.map(\.key)) { text in choices.first { $0.key == text }?.value }
    }

    /// A `RawRepresentable` enum whose raw values are the names written in the file.
    func choice<Value: CaseIterable & RawRepresentable>(_ node: YAMLNode, key: String, _ type: Value.Type) -> Value?
    where Value.RawValue == String {
        choice(node, key: key, names: Value.allCases.map(\.rawValue), match: Value.init(rawValue:))
    }

    /// One of `names`, matched by `match`; anything else is an error listing them.
    func choice<Value>(_ node: YAMLNode, key: String, names: [String], match: (String) -> Value?) -> Value? {
        if case .scalar(let scalar) = node, !node.isNull {
            if let value = match(scalar.text) { return value }
            var message = "expected one of \(names.joined(separator: ", ")) for '\(key)', found '\(scalar.text)'"
            if let suggestion = KeySuggestion.closest(to: scalar.text, among: names) {
                message += "; did you mean '\(suggestion)'?"
            }
            fail(message, at: node.location)
            return nil
        }
        expected("one of \(names.joined(separator: ", "))", for: key, found: node)
        return nil
    }

    /// Any node as JSON: plain scalars typed by the core schema, quoted ones strings,
    /// mappings objects in key order, sequences arrays.
    package func json(_ node: YAMLNode, key: String) -> JSONValue {
        switch node {
        case .scalar(let scalar):
            switch scalar.resolved {
            case .null: return .null
            case .bool(let value): return .bool(value)
            case .int(let value): return .int(value)
            case .bigInteger(let text): return .number(text)
            case .float(let value): return .double(value)
            case .string(let text): return .string(text)
            }
        case .mapping(let mapping):
            return .object(jsonObject(mapping, key: key))
        case .sequence(let sequence):
            return .array(sequence.items.map { json($0, key: key) })
        }
    }

    /// A mapping as a JSON object; a repeated key is an error. Linear in the keys: a set
    /// finds repeats, since `JSONObject`'s own lookup scans (it is built for small rows).
    func jsonObject(_ mapping: YAMLMapping, key: String) -> JSONObject {
        var object = JSONObject(minimumCapacity: mapping.pairs.count)
        var seen = Set<String>(minimumCapacity: mapping.pairs.count)
        for pair in mapping.pairs {
            if !seen.insert(pair.key.text).inserted {
                fail("duplicate key '\(pair.key.text)' in \(key)", at: pair.key.location)
                continue
            }
            object.appendUnchecked(key: pair.key.text, value: json(pair.value, key: "\(key).\(pair.key.text)"))
        }
        return object
    }
}
