/// Decodes a node tree into a ``PipelineSpec``, collecting every error.
package struct SpecDecoder {
    package let context: DecodingContext
    /// The name used when the file gives none.
    let defaultName: String
    let file: String?
    /// Whether the section is a fan-out template already resolved against a parent row:
    /// its `${` are then parent values, text that is never read as a placeholder again.
    var placeholdersResolved = false
    /// Positions of values whose errors do not keep the spec from being built: values that
    /// name an unset variable, so that `validate` checks the rest of the file. A spec built
    /// past them is never run (the loader reports their errors).
    var unknownValues: Set<SourceLocation> = []

    func decode(_ root: YAMLNode) -> PipelineSpec? {
        guard case .mapping = root else {
            context.fail("a pipeline file is a mapping of keys (name, source, ...), found \(root.foundDescription)", at: root.location)
            return nil
        }
        guard let top = Section(root, name: Section.topLevel, context: context) else { return nil }
        top.checkKeys(SpecKeys.topLevel, nested: SpecKeys.sectionOfKey)
        let name = top.nonEmptyString("name") ?? defaultName
        // A pipeline writing to a portal may take its rows from standard input or --input instead.
        let sourceNode = isLiferaySink(top) ? top["source"] : top.required("source")
        let source = sourceNode.flatMap { Section($0, name: "source", context: context) }.flatMap(decodeSource)
            ?? (isLiferaySink(top) && sourceNode == nil ? SourceSpec.writeInput : nil)
        let convert = top.section("convert").map(decodeConvert)
        let cache = top.section("cache").map(decodeCache)
        let filter = top.section("filter").map(decodeFilter)
        let sink = top.section("sink").flatMap(decodeSink) ?? SinkSpec()
        let incremental = top.section("incremental").flatMap(decodeIncremental)
        let follow = top.section("follow").map { decodeFollow($0, incremental: top["incremental"] != nil, source: source) }
        if case .registered(let registered) = sink.destination {
            registered.configuration.checkPipeline(top, incremental: incremental != nil, filter: filter, decoder: self)
        }
        if incremental == nil, let source { refuseUnfilledCursorPlaceholder(in: source, at: top.location) }
        guard context.errors.allSatisfy({ $0.location.map(unknownValues.contains) ?? false }) else { return nil }
        // A source that failed only for want of a variable: the rest is checked beside a stand-in.
        guard let built = source ?? (context.errors.isEmpty ? nil : SourceSpec.writeInput) else { return nil }
        var spec = PipelineSpec(
            name: name, source: built, convert: convert, cache: cache, filter: filter, sink: sink, file: file)
        spec.incremental = incremental
        spec.follow = follow
        return spec
    }
}

// MARK: - Convert, cache, filter, sink

extension SpecDecoder {
    func decodeConvert(_ section: Section) -> ConvertSpec {
        section.checkKeys(SpecKeys.convert)
        var spec = ConvertSpec()
        spec.model = section.choice("model", ModelKind.self)
        if let node = section["locale"], let locale = context.nonEmptyString(node, key: "locale") {
            if Self.isLocale(locale) {
                spec.locale = locale
            } else {
                context.fail("expected a locale such as en_US or es_ES for 'locale', found '\(locale)'", at: node.location)
            }
        }
        spec.fields = section.section("fields").map(decodeFields)
        let policies: KeyValuePairs<String, InvalidRowPolicy> = ["fail": .fail, "skip": .skip]
        if let policy = section["on-invalid"].flatMap({ context.choice($0, key: "on-invalid", policies) }) {
            spec.onInvalid = policy
        }
        // Compiled here as well as in PipelineValidation, so a bad mapping (a malformed path,
        // a default of the wrong type) is reported with the file's other mistakes.
        do throws(ScreensPipeError) {
            _ = try RowConverter(spec: spec)
        } catch {
            context.append(error)
        }
        return spec
    }

    /// `out: path` or `out: { from, type, default, required, localized }`; `from` defaults to the output name.
    private func decodeFields(_ section: Section) -> [FieldMapping] {
        var fields: [FieldMapping] = []
        for pair in section.mapping.pairs {
            let name = pair.key.text
            let location = pair.key.location
            switch pair.value {
            case .scalar:
                guard let from = context.nonEmptyString(pair.value, key: name) else { continue }
                fields.append(FieldMapping(name: name, from: from, location: location))
            case .mapping:
                guard let entry = Section(pair.value, name: "\(section.name).\(name)", context: context) else { continue }
                entry.checkKeys(SpecKeys.fieldMapping)
                fields.append(
                    FieldMapping(
                        name: name, from: entry.nonEmptyString("from") ?? name,
                        type: entry.choice("type", FieldType.self),
                        defaultValue: entry.mapping["default"].map { context.json($0, key: "default") },
                        required: entry.bool("required") ?? false, localized: entry.bool("localized") ?? false,
                        location: location))
            case .sequence:
                context.fail("expected a source path or a mapping for field '\(name)', found a sequence", at: pair.value.location)
            }
        }
        return fields
    }

    private static func isLocale(_ text: String) -> Bool {
        let parts = text.split(separator: "_", omittingEmptySubsequences: false)
            .flatMap { $0.split(separator: "-", omittingEmptySubsequences: false) }
        guard let language = parts.first, (2...3).contains(language.count), language.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            return false
        }
        return parts.dropFirst().allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }

    func decodeCache(_ section: Section) -> CacheSpec {
        section.checkKeys(SpecKeys.cache)
        return CacheSpec(
            policy: section.choice("policy", CachePolicy.self) ?? .remoteFirst,
            key: section.nonEmptyString("key"), ttl: section.duration("ttl", atMost: ConfigLimits.maximumTTL), path: section.nonEmptyString("path"),
            postgres: decodePostgresTarget(section, besides: "path"),
            lockWait: section.duration("lock-wait", atMost: ConfigLimits.maximumLockWait))
    }

    func decodeFilter(_ section: Section) -> FilterSpec {
        section.checkKeys(SpecKeys.filter)
        var spec = FilterSpec(limit: section.int("limit", atLeast: 1))
        if let node = section["where"], let expression = context.nonEmptyString(node, key: "where"), case .scalar(let scalar) = node {
            spec.expression = expression
            spec.expressionLocation = scalar.textLocation
        }
        // Parsed here as well as in PipelineValidation, so a bad expression is reported with
        // the file's other mistakes instead of after they are fixed.
        if let expression = spec.expression {
            do throws(ScreensPipeError) {
                _ = try RowFilter(expression: expression, location: spec.expressionLocation)
            } catch {
                context.append(error)
            }
        }
        return spec
    }

    /// `type` defaults to `file` when a `path` is given, else `stdout`.
    func decodeSink(_ section: Section) -> SinkSpec? {
        if Self.isLiferayType(section["type"]) {
            guard let liferay = decodeLiferaySink(section) else { return nil }
            // Rows go to the portal, not to an output: `write` reads them from the bus.
            var sink = SinkSpec(destination: .discard)
            sink.liferay = liferay
            return sink
        }
        section.checkKeys(SpecKeys.sink)
        let registered = BackendRegistry.sinkTypes
        if let type = section["type"], case .scalar(let scalar) = type {
            if let sinkType = registered.first(where: { $0.name == scalar.text }) {
                return sinkType.decode(section, decoder: self).map { SinkSpec(destination: .registered(RegisteredSink($0))) }
            }
            if let product = Self.sinkTypesOfOtherProducts[scalar.text] {
                context.fail("sink type '\(scalar.text)' is in the \(product) product, which this program does not link", at: scalar.location)
                return nil
            }
        }
        for sinkType in registered {
            for key in sinkType.ownKeys {
                if let pair = section.mapping.pairs.first(where: { $0.key.text == key }) {
                    context.fail("key '\(key)' applies only to sink type '\(sinkType.name)'", at: pair.key.location)
                }
            }
        }
        let format = section.choice("format", SinkFormat.self) ?? .items
        let fields = section["fields"].flatMap(decodeFields)
        let types = ["stdout", "file"] + registered.map(\.name)
        let isFile = section["type"].map { node in
            context.choice(node, key: "type", names: types) { name in types.contains(name) ? name == "file" : nil }
        } ?? (section["path"] != nil)
        switch isFile {
        case true?:
            let pathNode = section.required("path", for: "sink of type 'file'")
            guard let path = pathNode.flatMap({ context.nonEmptyString($0, key: "path") }) else { return nil }
            return SinkSpec(destination: .file(path: path), format: format, fields: fields)
        case false?:
            if let path = section.mapping.pairs.first(where: { $0.key.text == "path" }) {
                context.fail("key 'path' does not apply to sink type 'stdout'; it is only for sink type file", at: path.key.location)
            }
            return SinkSpec(destination: .stdout, format: format, fields: fields)
        case nil:
            return nil
        }
    }

    /// Sink types the core knows only by name, for a clear message when their product is
    /// not linked (an embedder that depends on the core alone).
    private static let sinkTypesOfOtherProducts = ["postgres": StorageKind.postgres.product]

    /// `fields: [name, author.email]` or `fields: "name, author.email"`: field paths.
    private func decodeFields(_ node: YAMLNode) -> [FieldPath]? {
        let items: [YAMLNode]
        switch node {
        case .sequence(let sequence): items = sequence.items
        default: items = [node]
        }
        var paths: [FieldPath] = []
        for item in items {
            guard let text = context.nonEmptyString(item, key: "fields") else { return nil }
            do throws(ScreensPipeError) {
                paths += try FieldPath.list(text)
            } catch {
                context.fail(error.message, at: item.location)
                return nil
            }
        }
        if paths.isEmpty { context.fail("'fields' must name at least one field", at: node.location) }
        return paths.isEmpty ? nil : paths
    }
}
