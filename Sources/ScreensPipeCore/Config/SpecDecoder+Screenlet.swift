import ScreensBus

/// The Screenlet attributes of a `liferay-jsonws` source, as a Liferay developer writes
/// them: `groupId: 0` for the server context's site, each screenlet's `validateData`,
/// asset `classes:` by name, and an Asset Publisher's `portlet-item-name`. Every problem is
/// a configuration error at its position, before any request.
extension SpecDecoder {
    /// `classes: [BookmarksEntry, com.liferay.journal.model.JournalArticle]`: fully qualified
    /// class names, in the order written, each once.
    func decodeClasses(_ section: Section) -> [String] {
        guard let node = section["classes"] else { return [] }
        let items: [YAMLNode]
        if case .sequence(let sequence) = node { items = sequence.items } else { items = [node] }
        if items.isEmpty { context.fail("'classes' must name at least one asset class", at: node.location) }
        var names: [String] = []
        for item in items {
            guard let text = context.nonEmptyString(item, key: "classes") else { continue }
            guard let qualified = AssetClassNames.qualified(text) else {
                let known = AssetClassNames.byShortName.keys.sorted()
                var message = "unknown asset class '\(text)' in 'classes': write a short name (\(known.joined(separator: ", "))) or a fully qualified class name"
                if let suggestion = KeySuggestion.closest(to: text, among: known) { message += "; did you mean '\(suggestion)'?" }
                context.fail(message, at: item.location)
                continue
            }
            if !names.contains(qualified) { names.append(qualified) }
        }
        return names
    }

    /// `portlet-item-name: NAME` (or `{ name: NAME, group-id: N }`): the saved selection
    /// replaces the rows and count commands, so those keys are refused beside it.
    func decodePortletItem(_ section: Section, _ node: YAMLNode, source: SourceSpec) -> JSONWSSourceSpec? {
        for key in ["rows", "count", "sort", "start-param", "end-param", "classes"] {
            guard let pair = section.mapping.pairs.first(where: { $0.key.text == key }) else { continue }
            context.fail(
                "key '\(key)' does not apply with 'portlet-item-name': the saved Asset Publisher configuration is the query, loaded through \(PortletItemSelection.service)",
                at: pair.key.location)
        }
        var name: String?
        var groupId: Int64?
        if case .mapping = node {
            guard let item = Section(node, name: "source.portlet-item-name", context: context) else { return nil }
            item.checkKeys(["name", "group-id"])
            name = item.required("name").flatMap { context.nonEmptyString($0, key: "name") }
            groupId = item.int("group-id", atLeast: 0, atMost: Int.max).map(Int64.init)
        } else {
            name = context.nonEmptyString(node, key: "portlet-item-name")
        }
        if groupId == nil || groupId == 0 { groupId = source.serverContext?.groupId }
        let companyId = source.serverContext?.companyId
        if companyId == nil {
            context.fail(
                "'portlet-item-name' needs the portal's company id (LiferayServerContext.companyId): set source.server: { url: ..., company-id: N }",
                at: node.location)
        }
        if groupId == nil {
            context.fail(
                "'portlet-item-name' needs a site: write portlet-item-name: { name: ..., group-id: N }, or set source.server: { url: ..., group-id: N }",
                at: node.location)
        }
        guard let name, let companyId, let groupId else { return nil }
        let selection = PortletItemSelection(name: name, companyId: companyId, groupId: groupId, max: source.pagination.firstPageSize)
        let call = ServiceCall(
            service: PortletItemSelection.service,
            params: ["companyId": .int(companyId), "groupId": .int(groupId), "portletItemName": .string(name)])
        var spec = JSONWSSourceSpec(rows: call)
        spec.portletItem = selection
        return spec
    }

    /// Applies each screenlet's rules to the rows and count commands: a group of 0 (or none)
    /// becomes the server context's site, `recordSetId` is renamed to the signature's
    /// `ddlRecordSetId`, and every parameter a screenlet's `validateData` insists on is there.
    func applyScreenletRules(to spec: inout JSONWSSourceSpec, section: Section, serverContext: ServerContext?) {
        // Classes written but all refused were reported already; the rows need not say so again.
        let classes = spec.classNames.isEmpty && section["classes"] != nil ? nil : spec.classNames
        spec.rows = applyScreenletRule(to: spec.rows, command: "rows", section: section, serverContext: serverContext, classes: classes)
        if let count = spec.count {
            spec.count = applyScreenletRule(to: count, command: "count", section: section, serverContext: serverContext, classes: nil)
        }
        if !spec.classNames.isEmpty, ScreenletRule.rule(for: spec.rows.service)?.classesIn == nil,
            let pair = section.mapping.pairs.first(where: { $0.key.text == "classes" })
        {
            context.fail(
                "'classes' applies to asset lists (/screens.screensassetentry/get-asset-entries, /assetentry/get-entries), not to \(spec.rows.service)",
                at: pair.key.location)
        }
    }

    /// `classes` is nil for the count command: the rows command reports a missing class once.
    private func applyScreenletRule(
        to call: ServiceCall, command: String, section: Section, serverContext: ServerContext?, classes: [String]?
    ) -> ServiceCall {
        guard let rule = ScreenletRule.rule(for: call.service) else { return call }
        var params = JSONWSWireFormat.flatten(call.params)
        var changed = false
        for required in rule.required {
            if params[required.name] == nil, let alias = required.aliases.first(where: { params[$0] != nil }) {
                params[required.name] = params[alias]
                params[alias] = nil
                changed = true
            }
            let value = params[required.name]
            if value == nil || value?.isNull == true || (required.zeroIsMissing && value.map(Self.isZero) == true)
                || (required.emptyIsMissing && value?.stringValue?.allSatisfy(\.isWhitespace) == true)
            {
                context.fail(
                    "\(rule.screenlet): \(call.service) needs '\(required.name)', \(required.hint); add it to source.\(command).params",
                    at: parameterLocation(required.name, command: command, in: section))
            }
        }
        if let group = rule.group {
            let key =
                switch group {
                case .parameter(let name): name
                case .entryQuery(let query): "\(query).groupIds"
                }
            let value = params[key]
            if value == nil || value?.isNull == true || value.map(Self.isZero) == true {
                if let site = serverContext?.groupId {
                    params[key] = .int(site)
                    changed = true
                } else {
                    let written = value == nil || value?.isNull == true ? "not given" : "0"
                    context.fail(
                        "\(rule.screenlet): \(call.service) needs a site, and '\(key)' is \(written), which Liferay Screens reads as the server context's site; none is set: give the site's id in source.\(command).params, or set source.server: { url: ..., group-id: N }",
                        at: parameterLocation(key, command: command, in: section))
                }
            }
        }
        if let classes, let query = rule.classesIn {
            let key = "\(query).classNameIds"
            let written = params[key].map { !Self.isZero($0) && $0 != .null } ?? false
            if !classes.isEmpty, params[key] != nil {
                context.fail(
                    "give the asset classes once: 'classes' or \(key), not both",
                    at: parameterLocation(key, command: command, in: section))
            } else if classes.isEmpty, !written {
                context.fail(
                    "\(rule.screenlet): \(call.service) lists no asset class (undefined-classname): name them with source.classes: [BookmarksEntry, JournalArticle], give \(key), or load a saved selection with portlet-item-name",
                    at: parameterLocation(key, command: command, in: section))
            }
        }
        guard changed else { return call }
        var resolved = call
        resolved.params = params
        return resolved
    }

    /// 0 in any form a portal converts to 0: a number, its text, or an empty or all-zero array.
    static func isZero(_ value: JSONValue) -> Bool {
        switch value {
        case .array(let elements): return elements.allSatisfy(isZero)
        case .string(let text): return text.filter { !$0.isWhitespace } == "0"
        default: return value.int64Value == 0
        }
    }

    /// The position of parameter `name` (flattened, `query.field`) of `command`, else of its
    /// `params`, else of the command.
    private func parameterLocation(_ name: String, command: String, in section: Section) -> SourceLocation {
        guard case .mapping(let commandMapping)? = section[command] else { return section.location }
        guard case .mapping(let params)? = commandMapping["params"] else { return commandMapping.location }
        let head = name.split(separator: ".").first.map(String.init) ?? name
        if let pair = params.pairs.first(where: { $0.key.text == name }) ?? params.pairs.first(where: { $0.key.text == head }) {
            return pair.key.location
        }
        return params.location
    }
}
