/// An ordered list of HTTP header fields with case-insensitive lookup.
///
/// Order and duplicates are kept exactly as sent or received (`Set-Cookie`, `Link` may
/// repeat); lookups compare names ASCII case-insensitively, as HTTP requires.
package struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// One header field.
    package struct Field: Sendable, Hashable {
        package var name: String
        package var value: String

        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The fields in order.
    package private(set) var fields: [Field]

    /// Headers from `(name, value)` pairs, in order.
    package init(_ pairs: [(name: String, value: String)] = []) {
        fields = pairs.map { Field(name: $0.name, value: $0.value) }
    }

    /// Headers from a literal such as `["Accept": "application/json"]`, in written order.
    package init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// The fields as `(name, value)` pairs.
    package var pairs: [(name: String, value: String)] { fields.map { ($0.name, $0.value) } }

    /// The number of fields.
    package var count: Int { fields.count }

    /// Appends a field, keeping any existing field of the same name.
    package mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field named `name` with one field holding `value`.
    package mutating func replaceOrAdd(name: String, value: String) {
        remove(name: name)
        add(name: name, value: value)
    }

    /// Removes every field named `name`.
    package mutating func remove(name: String) {
        fields.removeAll { Self.namesMatch($0.name, name) }
    }

    /// The first value of the field named `name`, or nil.
    package subscript(name: String) -> String? {
        fields.first { Self.namesMatch($0.name, name) }?.value
    }

    /// Every value of the fields named `name`, in order.
    package func values(for name: String) -> [String] {
        fields.filter { Self.namesMatch($0.name, name) }.map(\.value)
    }

    /// Whether a field named `name` is present.
    package func contains(_ name: String) -> Bool { self[name] != nil }

    /// Iterates the fields as `(name, value)` pairs.
    package func makeIterator() -> some IteratorProtocol<(name: String, value: String)> {
        fields.lazy.map { (name: $0.name, value: $0.value) }.makeIterator()
    }

    /// The headers one per line as `Name: value`, secret values redacted.
    package var description: String {
        redactedHeaders(pairs).map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }

    static func namesMatch(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && a.lowercased() == b.lowercased()
    }
}
