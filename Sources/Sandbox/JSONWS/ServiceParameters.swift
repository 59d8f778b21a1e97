import ScreensBus

/// The parameters of one JSON-WS command, with Liferay's flattened object parameters
/// (`"+entryQuery": "<class>"` plus `"entryQuery.classNameIds": ...`) folded back into objects.
struct ServiceParameters: Sendable {
    /// Plain parameters (`groupId`, `start`...).
    private(set) var values: JSONObject = [:]
    /// Object parameters: the class named by `+name` and the fields of `name.field` (or of a JSON object `name`).
    private(set) var objects: [String: (className: String?, fields: ServiceParameters)] = [:]

    init(_ raw: JSONObject) {
        for (key, value) in raw {
            if key.hasPrefix("+") {
                let name = String(key.dropFirst())
                objects[name, default: (nil, ServiceParameters([:]))].className = value.stringValue
            } else if let dot = key.firstIndex(of: ".") {
                let name = String(key[..<dot])
                let field = String(key[key.index(after: dot)...])
                objects[name, default: (nil, ServiceParameters([:]))].fields.values[field] = value
            } else if case .object(let fields) = value {
                objects[key, default: (nil, ServiceParameters([:]))].fields = ServiceParameters(fields)
            } else {
                values[key] = value
            }
        }
    }

    /// A required `long` parameter; numeric strings convert as Liferay's converter does.
    func long(_ name: String) throws -> Int64 {
        guard let value = values[name], !value.isNull else { throw PortalError.missingParameter(name) }
        return try Self.convertLong(name, value)
    }

    /// An optional `long` parameter.
    func long(_ name: String, default defaultValue: Int64) throws -> Int64 {
        guard let value = values[name], !value.isNull else { return defaultValue }
        return try Self.convertLong(name, value)
    }

    /// An optional `long[]`: a JSON array, a single number, or comma-separated text.
    func longs(_ name: String) throws -> [Int64]? {
        guard let value = values[name], !value.isNull else { return nil }
        switch value {
        case .array(let elements):
            return try elements.map { try Self.convertLong(name, $0) }
        case .string(let text):
            return try text.split(separator: ",").map { try Self.convertLong(name, .string(String($0))) }
        default:
            return [try Self.convertLong(name, value)]
        }
    }

    /// An optional `boolean`.
    func bool(_ name: String) throws -> Bool? {
        guard let value = values[name], !value.isNull else { return nil }
        switch value {
        case .bool(let flag): return flag
        case .string("true"): return true
        case .string("false"): return false
        default: throw PortalError.typeConversion(name, value, to: "boolean")
        }
    }

    /// An optional `String`.
    func string(_ name: String) throws -> String? {
        guard let value = values[name], !value.isNull else { return nil }
        guard let text = value.stringValue else { throw PortalError.typeConversion(name, value, to: "String") }
        return text
    }

    /// The object parameter `name`, if it was sent in any form.
    func object(_ name: String) -> (className: String?, fields: ServiceParameters)? {
        objects[name]
    }

    private static func convertLong(_ name: String, _ value: JSONValue) throws -> Int64 {
        if let number = value.int64Value { return number }
        if let text = value.stringValue, let number = Int64(text.trimmingCharacters(in: " ")) { return number }
        throw PortalError.typeConversion(name, value, to: "long")
    }
}

extension String {
    fileprivate func trimmingCharacters(in character: Character) -> Substring {
        var text = Substring(self)
        while text.first == character { text = text.dropFirst() }
        while text.last == character { text = text.dropLast() }
        return text
    }
}
