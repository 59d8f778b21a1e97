import ScreensJSON

/// The parameters of one JSON-WS command, read as the portal reads them (see
/// ``JSONWSActionMatcher``): `-name` is null, `+name: "<class>"` names an object parameter
/// of that class, `name:type` carries a type in the key, and `name.field` sets a field of
/// the object parameter `name`. A JSON object value is an object parameter too.
struct ServiceParameters: Sendable {
    /// Plain parameters (`groupId`, `start`...).
    private(set) var values: JSONObject = [:]
    /// Object parameters: the class named by `+name` and the fields of `name.field` (or of a JSON object `name`).
    private(set) var objects: [String: (className: String?, fields: ServiceParameters)] = [:]
    /// The parameters the command names (inner `name.field` keys name nothing by themselves).
    private(set) var named: Set<String> = []

    init(_ raw: JSONObject) {
        for (key, rawValue) in raw {
            var name = Substring(key)
            var value = rawValue
            var className: String?
            if name.hasPrefix("-") {
                name = name.dropFirst()
                value = .null
            } else if name.hasPrefix("+") {
                name = name.dropFirst()
                className = rawValue.stringValue
            }
            if let colon = name.firstIndex(of: ":") {
                className = String(name[name.index(after: colon)...])
                name = name[..<colon]
            }
            if let dot = name.firstIndex(of: ".") {
                let base = String(name[..<dot])
                objects[base, default: (nil, ServiceParameters([:]))].fields.values[String(name[name.index(after: dot)...])] = value
                continue
            }
            let parameter = String(name)
            named.insert(parameter)
            if key.hasPrefix("+") || (className != nil && value.isNull) {
                objects[parameter, default: (nil, ServiceParameters([:]))].className = className
            } else if case .object(let fields) = value {
                objects[parameter, default: (nil, ServiceParameters([:]))].fields = ServiceParameters(fields)
            } else {
                values[parameter] = value
            }
        }
    }

    /// Only the parameters `signature` declares, under their declared spelling: the portal
    /// passes nothing else to the method, so extra parameters have no effect.
    func restricted(to signature: ServiceSignature) -> ServiceParameters {
        var kept = ServiceParameters([:])
        for declared in signature.parameterNames {
            let lowered = declared.lowercased()
            if let given = named.first(where: { $0.lowercased() == lowered }) {
                kept.named.insert(declared)
                if let value = values[given] { kept.values[declared] = value }
            }
            if let given = objects.keys.first(where: { $0.lowercased() == lowered }) {
                kept.objects[declared] = objects[given]
            }
        }
        return kept
    }

    /// Whether the command names `name` with a null value (`name: null` or `-name`) and no
    /// object of a class (`+name`) or fields (`name.field`).
    func isExplicitNull(_ name: String) -> Bool {
        named.contains(name) && values[name]?.isNull == true && objects[name] == nil
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
