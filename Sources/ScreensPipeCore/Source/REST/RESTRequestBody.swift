import ScreensBus

/// `method: POST` with `body:` for search-style APIs: a JSON template whose placeholder
/// strings are replaced, per page, by JSON values.
///
/// A placeholder is a whole string value: `"{offset}"`, `"{limit}"` (or `"{pageSize}"`),
/// `"{page}"` and `"{cursor}"`. It becomes a JSON number (a cursor: its string, or null on
/// the first page), never text spliced into JSON, so a cursor cannot break out of its value.
public struct RESTRequestBody: Sendable, Hashable {
    /// A value the paginator sets in the body.
    public enum Placeholder: String, Sendable, CaseIterable {
        case offset = "{offset}"
        case limit = "{limit}"
        case pageSize = "{pageSize}"
        case page = "{page}"
        case cursor = "{cursor}"
    }

    /// The body as written, placeholders included.
    public var template: JSONValue
    /// Retry the POST like a read (`idempotent: true`, the default: a search changes
    /// nothing); false sends each page once and fails on the first error.
    public var idempotent: Bool

    /// Creates a body template.
    public init(template: JSONValue, idempotent: Bool = true) {
        self.template = template
        self.idempotent = idempotent
    }

    /// The placeholders the template holds.
    var placeholders: Set<Placeholder> {
        var found: Set<Placeholder> = []
        func walk(_ value: JSONValue) {
            switch value {
            case .string(let text): if let placeholder = Placeholder(rawValue: text) { found.insert(placeholder) }
            case .array(let items): items.forEach(walk)
            case .object(let object): object.forEach { walk($0.value) }
            default: break
            }
        }
        walk(template)
        return found
    }

    /// Whether the template tells the server the page size.
    var carriesPageSize: Bool { !placeholders.isDisjoint(with: [.limit, .pageSize]) }

    /// The body of one page: every placeholder replaced by its JSON value.
    func body(offset: Int, size: Int, page: Int, cursor: String?) -> JSONValue {
        func fill(_ value: JSONValue) -> JSONValue {
            switch value {
            case .string(let text):
                switch Placeholder(rawValue: text) {
                case .offset?: return .int(Int64(offset))
                case .limit?, .pageSize?: return .int(Int64(size))
                case .page?: return .int(Int64(page))
                case .cursor?: return cursor.map(JSONValue.string) ?? .null
                case nil: return value
                }
            case .array(let items): return .array(items.map(fill))
            case .object(let object):
                var filled = JSONObject(minimumCapacity: object.count)
                for (key, member) in object { filled.appendUnchecked(key: key, value: fill(member)) }
                return .object(filled)
            default: return value
            }
        }
        return fill(template)
    }

    /// The placeholders `style` needs in the body, as alternatives per value (any of each group).
    static func required(by style: RESTPaginationStyle) -> [[Placeholder]] {
        switch style {
        case .offset: [[.offset], [.limit, .pageSize]]
        case .page: [[.page], [.limit, .pageSize]]
        case .cursor: [[.cursor]]
        case .nextLink, .linkHeader, .auto: []
        }
    }
}

extension SpecDecoder {
    static let restBodyKeys = ["method", "body", "idempotent"]

    /// `method`, `body` and `idempotent` of a `rest` source; nil for a plain GET.
    func decodeRESTRequestBody(_ section: Section, paginate: RESTPaginationStyle?) -> RESTRequestBody? {
        let method = section["method"].flatMap { context.choice($0, key: "method", ["GET": "GET", "POST": "POST"]) } ?? "GET"
        let bodyNode = section["body"]
        guard method == "POST" else {
            for key in ["body", "idempotent"] {
                if let node = section[key] { context.fail("'\(key)' needs 'method: POST'", at: node.location) }
            }
            return nil
        }
        guard let bodyNode else {
            context.fail("'method: POST' needs 'body': the JSON to send, with {offset}, {limit}, {page} or {cursor} placeholders", at: section.location)
            return nil
        }
        guard case .mapping = bodyNode else {
            context.fail("'body' must be a mapping (the JSON object to send)", at: bodyNode.location)
            return nil
        }
        let body = RESTRequestBody(template: context.json(bodyNode, key: "body"), idempotent: section.bool("idempotent") ?? true)
        if let paginate {
            let present = body.placeholders
            for group in RESTRequestBody.required(by: paginate) where present.isDisjoint(with: group) {
                context.fail(
                    "the body needs \(group.map { "\"\($0.rawValue)\"" }.joined(separator: " or ")) for this paginate style: the page goes in the body of a POST",
                    at: bodyNode.location)
            }
        }
        return body
    }
}
