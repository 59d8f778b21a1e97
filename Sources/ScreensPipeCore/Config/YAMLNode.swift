/// A YAML document as the config loader sees it: scalars, mappings and sequences, each
/// carrying where it was written so every message can say `file:line:column`.
///
/// Aliases are already resolved (an alias is a copy of its anchored node), so decoding
/// never sees anchors. The tree is a value: overrides and interpolation rewrite it in place.
package indirect enum YAMLNode: Sendable, Hashable {
    case scalar(YAMLScalar)
    case mapping(YAMLMapping)
    case sequence(YAMLSequence)

    /// Where the node starts.
    package var location: SourceLocation {
        switch self {
        case .scalar(let scalar): scalar.location
        case .mapping(let mapping): mapping.location
        case .sequence(let sequence): sequence.location
        }
    }

    /// The number of nodes in this subtree, itself included; what an alias to it costs.
    var nodeCount: Int {
        switch self {
        case .scalar: 1
        case .mapping(let mapping): mapping.nodeCount
        case .sequence(let sequence): sequence.nodeCount
        }
    }

    /// The UTF-8 bytes of every scalar in this subtree (keys included); what an alias to it
    /// copies.
    var textBytes: Int {
        switch self {
        case .scalar(let scalar): scalar.text.utf8.count
        case .mapping(let mapping): mapping.pairs.reduce(0) { $0 + $1.key.text.utf8.count + $1.value.textBytes }
        case .sequence(let sequence): sequence.items.reduce(0) { $0 + $1.textBytes }
        }
    }

    /// A short description of the node for "found ..." in type errors.
    package var foundDescription: String {
        switch self {
        case .scalar(let scalar): scalar.foundDescription
        case .mapping: "a mapping"
        case .sequence: "a sequence"
        }
    }

    /// Whether the node is a plain null (`~`, `null`, or nothing at all).
    var isNull: Bool {
        if case .scalar(let scalar) = self, case .null = scalar.resolved { return true }
        return false
    }
}

/// A scalar and how it was written: a plain scalar is typed by its text (`100` is an
/// integer), any quoted or block scalar is always a string.
package struct YAMLScalar: Sendable, Hashable {
    enum Style: Sendable, Hashable {
        case plain, singleQuoted, doubleQuoted, literal, folded
    }

    package var text: String
    var style: Style
    package var location: SourceLocation
    /// Whether the scalar sat on one line of the file (so a column offset into it is exact).
    var isSingleLine: Bool
    /// For a literal block (`|`), where its text starts: the line after the indicator, at
    /// the block's indentation (each line of the text is indented the same in the file).
    var blockTextLocation: SourceLocation?

    init(text: String, style: Style, location: SourceLocation, isSingleLine: Bool = true) {
        self.text = text
        self.style = style
        self.location = location
        self.isSingleLine = isSingleLine
    }

    /// Where the scalar's text itself starts: past the opening quote of a quoted scalar.
    var textLocation: SourceLocation {
        if style == .literal, let blockTextLocation { return blockTextLocation }
        guard isSingleLine, style == .singleQuoted || style == .doubleQuoted else { return location }
        var location = location
        location.column += 1
        return location
    }

    /// The scalar typed by the YAML 1.2 core schema (plain scalars only; others are strings).
    var resolved: ResolvedScalar {
        style == .plain ? ResolvedScalar(plain: text) : .string(text)
    }

    var foundDescription: String { resolved.foundDescription }
}

/// A mapping in file order. Keys are scalars in a pipeline file; the reader rejects others.
package struct YAMLMapping: Sendable, Hashable {
    package struct Pair: Sendable, Hashable {
        package var key: YAMLScalar
        var value: YAMLNode
    }

    package var pairs: [Pair]
    var location: SourceLocation

    /// The value of the first pair whose key is `key`.
    subscript(key: String) -> YAMLNode? {
        get { pairs.first { $0.key.text == key }?.value }
    }

    var nodeCount: Int { pairs.reduce(1) { $0 + 1 + $1.value.nodeCount } }
}

/// A sequence in file order.
package struct YAMLSequence: Sendable, Hashable {
    package var items: [YAMLNode]
    var location: SourceLocation

    var nodeCount: Int { items.reduce(1) { $0 + $1.nodeCount } }
}
