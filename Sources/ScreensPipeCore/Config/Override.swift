/// One `--set key.path=value` from the command line, applied to the node tree before decoding.
///
/// The value is read as a YAML scalar (`100` is an integer, `true` a boolean, `'100'` a
/// string) and is not interpolated: the shell has already expanded it. Missing mappings on
/// the path are created. Nodes it writes are located at `--set key.path`, line 1, with the
/// column of the value inside the argument.
struct Override: Sendable {
    /// The most parts a key path may have; setting walks one level per part, and no pipeline
    /// key is nearly this deep.
    static let maximumPathParts = 32

    /// The argument as given.
    var argument: String
    var path: [String]
    var value: YAMLScalar

    /// Where messages about this override point.
    var location: SourceLocation { value.location }

    init(parsing argument: String) throws(ScreensPipeError) {
        self.argument = argument
        guard let equals = argument.firstIndex(of: "=") else {
            throw ScreensPipeError(
                .configuration, "expected key.path=value, found '\(argument)'",
                location: SourceLocation(file: "--set \(argument)", line: 1, column: 1))
        }
        let pathText = String(argument[..<equals])
        let valueText = String(argument[argument.index(after: equals)...])
        let label = "--set \(pathText)"
        path = pathText.split(separator: ".", maxSplits: Self.maximumPathParts, omittingEmptySubsequences: false)
            .map(String.init)
        guard path.count <= Self.maximumPathParts else {
            throw ScreensPipeError(
                .configuration, "the key path has more than \(Self.maximumPathParts) parts",
                location: SourceLocation(file: "--set \(pathText.prefix(40))…", line: 1, column: 1))
        }
        guard path.allSatisfy({ !$0.isEmpty }) else {
            throw ScreensPipeError(
                .configuration, "the key path '\(pathText)' has an empty part",
                location: SourceLocation(file: label, line: 1, column: 1))
        }
        let location = SourceLocation(file: label, line: 1, column: pathText.count + 2)
        // A quoted value keeps its quotes' meaning; anything that is not a lone scalar is text.
        if case .scalar(var scalar)? = try? YAMLReader(file: label).read(Array(valueText.utf8)) {
            scalar.location = location
            scalar.isSingleLine = false
            value = scalar
        } else {
            value = YAMLScalar(text: valueText, style: .plain, location: location, isSingleLine: false)
        }
    }

    /// Sets the value in `root`, creating mappings on the way.
    func apply(to root: inout YAMLNode) throws(ScreensPipeError) {
        guard case .mapping(var mapping) = root else {
            throw ScreensPipeError(
                .configuration, "cannot set '\(path.joined(separator: "."))': the file is not a mapping", location: location)
        }
        try set(in: &mapping, at: 0)
        root = .mapping(mapping)
    }

    private func set(in mapping: inout YAMLMapping, at depth: Int) throws(ScreensPipeError) {
        let key = path[depth]
        let index = mapping.pairs.firstIndex { $0.key.text == key }
        if depth == path.count - 1 {
            if let index {
                mapping.pairs[index].value = .scalar(value)
            } else {
                mapping.pairs.append(YAMLMapping.Pair(key: keyScalar(key), value: .scalar(value)))
            }
            return
        }
        guard let index else {
            var child = YAMLMapping(pairs: [], location: location)
            try set(in: &child, at: depth + 1)
            mapping.pairs.append(YAMLMapping.Pair(key: keyScalar(key), value: .mapping(child)))
            return
        }
        switch mapping.pairs[index].value {
        case .mapping(var child):
            try set(in: &child, at: depth + 1)
            mapping.pairs[index].value = .mapping(child)
        case let other where other.isNull:
            // `cache:` with nothing under it is an empty section; give it its first key.
            var child = YAMLMapping(pairs: [], location: other.location)
            try set(in: &child, at: depth + 1)
            mapping.pairs[index].value = .mapping(child)
        case let other:
            let prefix = path[...depth].joined(separator: ".")
            throw ScreensPipeError(
                .configuration,
                "cannot set '\(path.joined(separator: "."))': '\(prefix)' is \(other.foundDescription), not a mapping",
                location: location)
        }
    }

    private func keyScalar(_ key: String) -> YAMLScalar {
        YAMLScalar(text: key, style: .plain, location: location, isSingleLine: false)
    }
}
