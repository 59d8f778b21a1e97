import Foundation
import ScreensBus

/// Checks JSON values against the subset of JSON Schema (2020-12) that the session schemas
/// in docs/schemas use: `type`, `enum`, `const`, `required`, `properties` (boolean schemas
/// included), `additionalProperties: false`, `minimum`, `maximum`, `pattern`, `oneOf`,
/// `allOf` and `if`/`then`. Any other keyword is reported as unsupported, so a schema that
/// grows past this subset fails the test instead of passing unchecked.
struct SchemaSubsetValidator {
    let schema: JSONValue

    static let supported: Set<String> = [
        "$schema", "$id", "title", "description", "type", "enum", "const", "required", "properties",
        "additionalProperties", "minimum", "maximum", "pattern", "oneOf", "allOf", "if", "then",
    ]

    /// Loads a schema from a file of the package (e.g. `docs/schemas/session-events.schema.json`).
    init(file: String) throws {
        let data = try Data(contentsOf: CommandRunner.packageRoot.appendingPathComponent(file))
        schema = try JSONValue(parsing: [UInt8](data))
    }

    /// The reasons `value` does not match; empty when it does.
    func problems(_ value: JSONValue) -> [String] {
        problems(value, schema, at: "$")
    }

    private func problems(_ value: JSONValue, _ schema: JSONValue, at path: String) -> [String] {
        if schema == true { return [] }
        if schema == false { return ["\(path): not allowed"] }
        guard let rules = schema.objectValue else { return ["\(path): the schema is not an object"] }
        var found: [String] = []
        for key in rules.keys where !Self.supported.contains(key) { found.append("\(path): unsupported keyword \(key)") }
        if let type = rules["type"] {
            let allowed = type.arrayValue?.compactMap(\.stringValue) ?? [type.stringValue ?? ""]
            if !allowed.contains(where: { matches(value, type: $0) }) { found.append("\(path): not of type \(allowed)") }
        }
        if let options = rules["enum"]?.arrayValue, !options.contains(value) { found.append("\(path): not one of \(options)") }
        if let constant = rules["const"], constant != value { found.append("\(path): not \(constant)") }
        if let minimum = rules["minimum"]?.doubleValue, let number = value.doubleValue, number < minimum {
            found.append("\(path): below \(minimum)")
        }
        if let maximum = rules["maximum"]?.doubleValue, let number = value.doubleValue, number > maximum {
            found.append("\(path): above \(maximum)")
        }
        if let pattern = rules["pattern"]?.stringValue, let text = value.stringValue,
            text.range(of: pattern, options: .regularExpression) == nil
        {
            found.append("\(path): does not match \(pattern)")
        }
        if let object = value.objectValue {
            for key in rules["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where object[key] == nil {
                found.append("\(path): no \(key)")
            }
            let properties = rules["properties"]?.objectValue ?? JSONObject()
            for (key, member) in object {
                if let rule = properties[key] {
                    found += problems(member, rule, at: "\(path).\(key)")
                } else if rules["additionalProperties"] == false {
                    found.append("\(path): unexpected \(key)")
                }
            }
        }
        for rule in rules["allOf"]?.arrayValue ?? [] { found += problems(value, rule, at: path) }
        if let condition = rules["if"], problems(value, condition, at: path).isEmpty, let then = rules["then"] {
            found += problems(value, then, at: path)
        }
        if let options = rules["oneOf"]?.arrayValue {
            let results = options.map { problems(value, $0, at: path) }
            let matching = results.filter(\.isEmpty).count
            if matching != 1 {
                found.append("\(path): matches \(matching) of oneOf (\(results.flatMap { $0 }.prefix(3).joined(separator: "; ")))")
            }
        }
        return found
    }

    private func matches(_ value: JSONValue, type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object): true
        case ("number", _): value.isNumber
        case ("integer", .int), ("integer", .number): true
        case ("integer", .double(let number)): number.rounded() == number
        default: false
        }
    }
}
