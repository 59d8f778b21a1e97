import ScreensBus

/// The `as` names a pipeline file declares, found before `${...}` references are expanded
/// so that `${site.id}` is left for the fan-out instead of read as an environment variable.
enum FanOutNames {
    /// Every `for-each.as` value under `source:`, at any depth.
    static func declared(in root: YAMLNode) -> Set<String> {
        guard case .mapping(let top) = root, let source = top["source"] else { return [] }
        var names = Set<String>()
        var pending = [source]
        // A loop over a work list rather than recursion: the file is untrusted, and its
        // nesting depth is bounded by the reader, not by this walk.
        while let node = pending.popLast() {
            guard case .mapping(let mapping) = node, case .mapping(let forEach)? = mapping["for-each"] else { continue }
            if case .scalar(let name)? = forEach["as"] { names.insert(name.text) }
            if let list = forEach["list"] { pending.append(list) }
        }
        return names
    }
}

extension SpecDecoder {
    /// The keys of `for-each:`.
    static let forEachKeys = ["as", "list", "concurrency", "max-parents"]
    /// The keys of `recursive:`.
    static let recursiveKeys = ["key", "param", "max-depth"]

    /// Decodes `for-each`, `include` and `recursive` of a `source:` section (or of a
    /// `for-each.list`), checks its placeholders, and keeps the section as the template
    /// each parent row resolves.
    func decodeFanOut(_ section: Section, into spec: inout SourceSpec) {
        if let node = section["for-each"], let forEach = Section(node, name: "\(section.name).for-each", context: context) {
            spec.forEach = decodeForEach(forEach, around: section)
        }
        let visible = spec.visibleParentNames
        if let node = section["include"] { spec.include = decodeInclude(node, visible: visible) }
        if let node = section["recursive"], let recursive = Section(node, name: "\(section.name).recursive", context: context) {
            spec.recursive = decodeRecursion(recursive, type: spec.type)
        }
        var template = section.mapping
        template.pairs.removeAll { ["for-each", "include", "recursive"].contains($0.key.text) }
        guard !placeholdersResolved else { return }
        checkPlaceholders(in: .mapping(template), visible: visible)
        if spec.fansOut { spec.rowTemplate = template }
    }

    private func decodeForEach(_ section: Section, around outer: Section) -> FanOutSpec? {
        section.checkKeys(Self.forEachKeys)
        var name: String?
        if let node = section.required("as", for: section.name), let text = context.nonEmptyString(node, key: "as") {
            if FieldPathParser.isPlainIdentifier(text) {
                name = text
            } else {
                context.fail("'as' must be a plain name (letters, digits, '_'), found '\(text)'", at: node.location)
            }
        }
        let concurrency = section.int("concurrency", atLeast: 1, atMost: 64)
        let maxParents = section.int("max-parents", atLeast: 1, atMost: 1_000_000) ?? FanOutSpec.defaultMaxParents
        guard let listNode = section.required("list", for: section.name),
            let list = Section(Self.inheritingNetworkKeys(listNode, from: outer.mapping), name: "\(section.name).list", context: context)
        else { return nil }
        guard let parent = decodeSource(list), let name else { return nil }
        if parent.visibleParentNames.contains(name), let node = section["as"] {
            context.fail("'as: \(name)' is already the name of a parent above this one", at: node.location)
        }
        if !parent.include.isEmpty, let node = section["list"] {
            context.fail("'include' belongs on the source whose rows are written, not on a parent list: name every parent's fields there", at: node.location)
        }
        if parent.forEach?.concurrency != nil, let node = section["list"] {
            context.fail("'concurrency' belongs on the outermost for-each (the source's own): one budget serves the whole run", at: node.location)
        }
        return FanOutSpec(name: name, list: parent, concurrency: concurrency, maxParents: maxParents)
    }

    /// A parent list takes the server, credentials and limits of the source around it
    /// unless it sets its own (a local file takes none).
    private static func inheritingNetworkKeys(_ node: YAMLNode, from outer: YAMLMapping) -> YAMLNode {
        guard case .mapping(var list) = node else { return node }
        if case .scalar(let type)? = list["type"],
            let settings = SourceRegistry.types.first(where: { $0.typeName == type.text }), !settings.isNetworked
        {
            return node
        }
        for pair in outer.pairs where SourceRegistry.networkKeys.contains(pair.key.text) && list[pair.key.text] == nil {
            list.pairs.append(pair)
        }
        return .mapping(list)
    }

    private func decodeInclude(_ node: YAMLNode, visible: [String]) -> [IncludedField] {
        let items: [YAMLNode]
        if case .sequence(let sequence) = node { items = sequence.items } else { items = [node] }
        var fields: [IncludedField] = []
        for item in items {
            guard let text = context.nonEmptyString(item, key: "include") else { continue }
            do throws(ScreensPipeError) {
                let path = try FieldPath(text)
                guard case .key(let name) = path.components[0], path.components.count > 1, visible.contains(name) else {
                    context.fail(
                        "'include: \(text)' must name a parent field as name.field, where name is one of: \(visible.isEmpty ? "(no for-each here)" : visible.joined(separator: ", "))",
                        at: item.location)
                    continue
                }
                fields.append(IncludedField(parent: name, field: FieldPath(components: Array(path.components.dropFirst()))))
            } catch {
                context.fail(error.message, at: item.location)
            }
        }
        return fields
    }

    private func decodeRecursion(_ section: Section, type: SourceTypeSpec) -> RecursionSpec? {
        section.checkKeys(Self.recursiveKeys)
        let key = section.required("key", for: section.name).flatMap { context.nonEmptyString($0, key: "key") }
        let param = section.required("param", for: section.name).flatMap { context.nonEmptyString($0, key: "param") }
        let maxDepth = section.int("max-depth", atLeast: 1, atMost: 64) ?? RecursionSpec.defaultMaxDepth
        if type.settings(as: FileSourceSpec.self) != nil {
            context.fail("'recursive' needs a source that takes parameters (liferay-jsonws params, or a query); a file has none", at: section.location)
            return nil
        }
        if let key, (try? FieldPath(key)) == nil, let node = section["key"] {
            context.fail("invalid field path '\(key)' for 'key'", at: node.location)
            return nil
        }
        guard let key, let param else { return nil }
        return RecursionSpec(key: key, param: param, maxDepth: maxDepth)
    }

    /// Every `${name.field}` in the source must name a parent this source can see.
    private func checkPlaceholders(in node: YAMLNode, visible: [String]) {
        RowPlaceholders.scalars(in: node) { scalar in
            do throws(ScreensPipeError) {
                for reference in try RowPlaceholders.references(in: scalar.text) where !visible.contains(reference.name) {
                    let declared = visible.isEmpty ? "this source has no for-each" : "its parents are \(visible.joined(separator: ", "))"
                    context.fail("'${\(reference.name).\(reference.field)}' names no parent of this source (\(declared))", at: scalar.location)
                }
            } catch {
                context.fail(error.message, at: scalar.location)
            }
        }
    }
}
