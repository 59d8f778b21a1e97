import Foundation
import ScreensJSON

/// Checks JSON answers against the OpenAPI schema subset copied into `Schemas/`: `type`,
/// `format` (`int64`, `int32`, `double`, `date-time`, `uri`), `required`, `properties`,
/// `items` and `$ref` to `#/components/schemas/<name>`.
///
/// Stricter than JSON Schema on one point, on purpose: a property the schema does not
/// declare is an error, because a REST Builder DTO cannot write one.
struct SchemaValidator {
    let schemas: JSONObject
    /// Where the copied parts were read, for failure messages.
    let provenance: JSONValue

    static func load(_ file: String) throws -> SchemaValidator {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Schemas/\(file)")
        let document = try JSONValue(parsing: Array(try Data(contentsOf: url)))
        guard case .object(let schemas)? = document["schemas"] else {
            throw SchemaError(message: "\(file) has no schemas object")
        }
        return SchemaValidator(schemas: schemas, provenance: document["provenance"] ?? .null)
    }

    struct SchemaError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// Every way `value` breaks the schema named `name`, as `path: problem` lines.
    ///
    /// `requiredProperties: false` for answers shaped by `fields` or `restrictFields`, which
    /// leave out whatever the client did not ask for, required or not.
    func violations(of value: JSONValue, against name: String, requiredProperties: Bool = true) -> [String] {
        guard let schema = schemas[name] else { return ["no schema named \(name)"] }
        var problems: [String] = []
        check(value, schema, path: "$", depth: 0, required: requiredProperties, into: &problems)
        return problems
    }

    private func check(
        _ value: JSONValue, _ schema: JSONValue, path: String, depth: Int, required checksRequired: Bool = true,
        into problems: inout [String]
    ) {
        guard depth < 32 else { return problems.append("\(path): schema nesting too deep") }
        if let reference = schema["$ref"]?.stringValue {
            let name = String(reference.split(separator: "/").last ?? "")
            guard let target = schemas[name] else { return problems.append("\(path): unknown $ref \(reference)") }
            return check(value, target, path: path, depth: depth + 1, required: checksRequired, into: &problems)
        }
        let format = schema["format"]?.stringValue
        switch schema["type"]?.stringValue {
        case "object":
            guard case .object(let object) = value else { return problems.append("\(path): \(value.typeName), not an object") }
            for required in checksRequired ? schema["required"]?.arrayValue ?? [] : [] {
                if let key = required.stringValue, object[key] == nil { problems.append("\(path): missing required \(key)") }
            }
            guard case .object(let properties)? = schema["properties"] else { return }
            for (key, member) in object {
                guard let property = properties[key] else {
                    problems.append("\(path).\(key): not a property of the schema")
                    continue
                }
                check(member, property, path: "\(path).\(key)", depth: depth + 1, required: checksRequired, into: &problems)
            }
        case "array":
            guard case .array(let elements) = value else { return problems.append("\(path): \(value.typeName), not an array") }
            if let items = schema["items"] {
                for (index, element) in elements.enumerated() {
                    check(element, items, path: "\(path)[\(index)]", depth: depth + 1, required: checksRequired, into: &problems)
                }
            }
        case "string":
            guard case .string(let text) = value else { return problems.append("\(path): \(value.typeName), not a string") }
            if format == "date-time", !Self.isDateTime(text) { problems.append("\(path): \(text) is not an RFC 3339 date-time") }
        case "integer":
            guard let number = value.int64Value, value.isInteger else {
                return problems.append("\(path): \(value.typeName), not an integer")
            }
            if format == "int32", Int32(exactly: number) == nil { problems.append("\(path): \(number) is not an int32") }
        case "number":
            guard value.doubleValue != nil else {
                return problems.append("\(path): \(value.typeName), not a number")
            }
        case "boolean":
            guard case .bool = value else { return problems.append("\(path): \(value.typeName), not a boolean") }
        default:
            break
        }
    }

    /// `2024-01-31T10:00:00Z` or with a fraction or an offset.
    static func isDateTime(_ text: String) -> Bool {
        text.range(
            of: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$"#, options: .regularExpression) != nil
    }
}

extension JSONValue {
    var isInteger: Bool {
        if case .int = self { return true }
        return false
    }
}
