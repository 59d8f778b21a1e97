import ScreensJSON

/// `fields` and `restrictFields`: which properties of each item a headless answer keeps.
///
/// `fields=id,title,creator.name` keeps only those paths (a parent keeps the listed
/// children); `restrictFields=contentFields,creator.image` drops those paths. Both take
/// comma-separated, dot-separated paths; with neither the item is whole.
struct FieldSelection: Sendable {
    static let maximumPaths = 256

    private var kept: [[Substring]]?
    private var dropped: [[Substring]]

    init(fields: String?, restrictFields: String?) throws {
        kept = try fields.flatMap { $0.isEmpty ? nil : try Self.paths($0, parameter: "fields") }
        dropped = try restrictFields.map { try Self.paths($0, parameter: "restrictFields") } ?? []
    }

    private static func paths(_ text: String, parameter: String) throws -> [[Substring]] {
        let paths = text.split(separator: ",").map { $0.split(separator: ".", omittingEmptySubsequences: false) }
        guard paths.count <= maximumPaths else {
            throw HeadlessError.badRequest("\(parameter) names more than \(maximumPaths) fields")
        }
        return paths
    }

    func apply(to item: JSONValue) -> JSONValue {
        var result = item
        if let kept { result = Self.keep(kept, in: result) }
        for path in dropped { result = Self.drop(path[...], from: result) }
        return result
    }

    private static func keep(_ paths: [[Substring]], in value: JSONValue) -> JSONValue {
        switch value {
        case .array(let elements):
            return .array(elements.map { keep(paths, in: $0) })
        case .object(let object):
            var kept = JSONObject()
            for (key, child) in object {
                let matching = paths.filter { $0.first.map(String.init) == key }
                guard !matching.isEmpty else { continue }
                let rest = matching.map { Array($0.dropFirst()) }
                kept[key] = rest.contains(where: \.isEmpty) ? child : keep(rest, in: child)
            }
            return .object(kept)
        default:
            return value
        }
    }

    private static func drop(_ path: ArraySlice<Substring>, from value: JSONValue) -> JSONValue {
        guard let head = path.first else { return value }
        switch value {
        case .array(let elements):
            return .array(elements.map { drop(path, from: $0) })
        case .object(var object):
            let key = String(head)
            if path.count == 1 {
                object[key] = nil
            } else if let child = object[key] {
                object[key] = drop(path.dropFirst(), from: child)
            }
            return .object(object)
        default:
            return value
        }
    }
}
