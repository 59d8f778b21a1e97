import ScreensBus

/// The parent rows a child list was made from, outermost first: what its placeholders
/// read, what `include:` copies, what its events and errors name.
struct Lineage: Sendable, Hashable {
    /// One parent row.
    struct Frame: Sendable, Hashable {
        /// The `as` name (`site`).
        var name: String
        /// The row's index in its parent list's output, 0-based.
        var row: Int
        /// The whole row, as the parent list returned it.
        var value: JSONValue
        /// The fields this pipeline's placeholders read, shown in events and errors.
        var shownFields: [String]
    }

    var frames: [Frame] = []
    /// In a tree: the keys of the rows whose children this list holds, root first.
    var tree: [JSONValue] = []

    var isEmpty: Bool { frames.isEmpty && tree.isEmpty }

    func adding(_ frame: Frame) -> Lineage {
        var copy = self
        copy.frames.append(frame)
        copy.tree = []
        return copy
    }

    func frame(named name: String) -> Frame? { frames.last { $0.name == name } }

    /// `site #1 (id=20144) > folder #0 (folderId=20210)`, for messages: the fields shown are
    /// those placeholders use, values cut to 64 characters (a parent value is untrusted).
    var description: String {
        var parts = frames.map { frame -> String in
            let values = frame.shownFields.compactMap { field -> String? in
                guard let path = try? FieldPath(field), let value = path.resolve(in: frame.value) else { return nil }
                return "\(field)=\(Self.shortText(value))"
            }
            return "\(frame.name) #\(frame.row)" + (values.isEmpty ? "" : " (\(values.joined(separator: ", ")))")
        }
        if !tree.isEmpty { parts.append("tree " + tree.map(Self.shortText).joined(separator: "/")) }
        return parts.joined(separator: " > ")
    }

    /// The `parent` member of events: `{"site": {"row": 1, "id": 20144}, "tree": [20200]}`.
    var json: JSONValue {
        var object = JSONObject()
        for frame in frames {
            var member: JSONObject = ["row": .int(Int64(frame.row))]
            for field in frame.shownFields {
                guard let path = try? FieldPath(field), let value = path.resolve(in: frame.value) else { continue }
                member[field] = Self.bounded(value)
            }
            object[frame.name] = .object(member)
        }
        if !tree.isEmpty { object["tree"] = .array(tree.map(Self.bounded)) }
        return .object(object)
    }

    /// `error` with this lineage named in front of its message.
    func naming(_ error: ScreensPipeError) -> ScreensPipeError {
        guard !isEmpty, error.code != .cancelled else { return error }
        var named = error
        named.message = "child list of \(description): \(error.message)"
        return named
    }

    private static func shortText(_ value: JSONValue) -> String {
        let text: String =
            switch value {
            case .string(let string): string
            default: value.jsonString
            }
        // A parent value is a server's text: shown with its control characters escaped.
        return escapedControlCharacters(text, limit: 64)
    }

    /// Scalars as they are; anything else (or a long string) as its shortened text, so an
    /// event never carries a hostile parent's megabytes.
    private static func bounded(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let string) where string.utf8.count > 256: .string(shortText(value))
        case .null, .bool, .int, .double, .number, .string: value
        case .array, .object: .string(shortText(value))
        }
    }
}

/// `include:`: the parent fields each output row of a child list carries.
enum ParentFields {
    /// The member every row gets: `_parent: {"site": {"name": "Guest"}}`.
    static let key = "_parent"

    /// The `_parent` member for rows of a list with `lineage`; nil when nothing is included.
    /// A field the parent row lacks is null, so every row has the same shape.
    static func object(_ include: [IncludedField], from lineage: Lineage) -> (key: String, value: JSONValue)? {
        guard !include.isEmpty else { return nil }
        var parents = JSONObject()
        for field in include {
            let value = lineage.frame(named: field.parent).flatMap { field.field.resolve(in: $0.value) } ?? .null
            var members: JSONObject
            if case .object(let existing)? = parents[field.parent] { members = existing } else { members = JSONObject() }
            members[field.field.description] = value
            parents[field.parent] = .object(members)
        }
        return (key, .object(parents))
    }
}
