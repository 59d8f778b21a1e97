/// One mapping of a pipeline file being decoded: key lookup, the unknown-key check with a
/// "did you mean" hint, and typed reads that report into the shared ``DecodingContext``.
package struct Section {
    /// How messages name this mapping: `source`, `source.pagination`, `the top level`.
    let name: String
    package let mapping: YAMLMapping
    let context: DecodingContext

    package var location: SourceLocation { mapping.location }

    /// The section for `node`, or nil (with an error) when it is not a mapping. A null
    /// node (`cache:` with nothing under it) is an empty section.
    init?(_ node: YAMLNode, name: String, context: DecodingContext) {
        self.name = name
        self.context = context
        switch node {
        case .mapping(let mapping):
            self.mapping = mapping
        case let node where node.isNull:
            mapping = YAMLMapping(pairs: [], location: node.location)
        default:
            context.fail("expected a mapping for '\(name)', found \(node.foundDescription)", at: node.location)
            return nil
        }
        var seen = Set<String>()
        for pair in mapping.pairs where !seen.insert(pair.key.text).inserted {
            context.fail("duplicate key '\(pair.key.text)' in \(name)", at: pair.key.location)
        }
    }

    /// Reports keys outside `allowed`; `elsewhere` names keys that belong to another variant
    /// (`rows` under a rest source) so the message can say so, and `nested` the sections a
    /// key belongs in (`retry` -> `source.retry`), for a key indented one level too little.
    package func checkKeys(_ allowed: [String], elsewhere: [String: String] = [:], nested: [String: [String]] = [:], in description: String? = nil) {
        for pair in mapping.pairs where !allowed.contains(pair.key.text) {
            let key = pair.key.text
            if let owner = elsewhere[key] {
                context.fail("key '\(key)' does not apply to \(description ?? name); it is only for \(owner)", at: pair.key.location)
                continue
            }
            var message = "unknown key '\(key)' in \(name)"
            if let suggestion = KeySuggestion.closest(to: key, among: allowed) {
                message += "; did you mean '\(suggestion)'?"
            } else if let places = nested[key] {
                message += "; did you mean \(places.map { "'\($0)'" }.joined(separator: " or "))?"
            }
            context.fail(message, at: pair.key.location)
        }
    }

    /// The value of `key`, or nil when it is missing or null.
    package subscript(key: String) -> YAMLNode? {
        guard let node = mapping[key], !node.isNull else { return nil }
        return node
    }

    /// The value of `key`; missing (or null) is an error.
    package func required(_ key: String, for what: String? = nil) -> YAMLNode? {
        if let node = self[key] { return node }
        if let node = mapping[key] {
            context.fail("'\(key)' in \(name) needs a value", at: node.location)
        } else {
            context.fail("missing required key '\(key)' in \(what ?? name)", at: location)
        }
        return nil
    }

    /// The sub-mapping `key`, when present.
    package func section(_ key: String) -> Section? {
        self[key].flatMap { Section($0, name: "\(name == Section.topLevel ? "" : "\(name).")\(key)", context: context) }
    }

    func string(_ key: String) -> String? { self[key].flatMap { context.string($0, key: key) } }

    func nonEmptyString(_ key: String) -> String? { self[key].flatMap { context.nonEmptyString($0, key: key) } }

    package func int(_ key: String, atLeast minimum: Int? = nil, atMost maximum: Int? = nil) -> Int? {
        self[key].flatMap { context.int($0, key: key, atLeast: minimum, atMost: maximum) }
    }

    func bool(_ key: String) -> Bool? { self[key].flatMap { context.bool($0, key: key) } }

    func duration(_ key: String, atMost maximum: Duration) -> Duration? {
        self[key].flatMap { context.duration($0, key: key, atMost: maximum) }
    }

    func size(_ key: String) -> Int? { self[key].flatMap { context.size($0, key: key) } }

    package func choice<Value: CaseIterable & RawRepresentable>(_ key: String, _ type: Value.Type) -> Value?
    where Value.RawValue == String {
        self[key].flatMap { context.choice($0, key: key, type) }
    }

    /// The name messages use for the root mapping.
    static let topLevel = "the top level"
}
