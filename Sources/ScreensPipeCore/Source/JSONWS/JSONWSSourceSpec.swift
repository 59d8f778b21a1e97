import ScreensBus

/// One JSON-WS command: a service path and its parameters.
public struct ServiceCall: Sendable, Hashable {
    /// The service path, e.g. `/bookmarks.bookmarksentry/get-entries`.
    public var service: String
    /// Parameters as written, secret ones excepted; nested objects are flattened to
    /// `+name` / `name.field` when sent.
    public var params: JSONObject
    /// The secret-named string parameters (`p_auth`, `password`...), kept apart as ``Secret``
    /// values from the loader to the transport, which adds them to the command.
    public var secrets: [String: Secret]

    /// Creates a command for `service`; string parameters with secret names move to
    /// ``secrets``, the rest stay in ``params`` as written.
    public init(service: String, params: JSONObject = [:]) {
        self.service = service
        var kept = JSONObject(minimumCapacity: params.count)
        var secrets: [String: Secret] = [:]
        for (name, value) in params {
            if case .string(let text) = value, isSecretParameterName(name) {
                secrets[name] = Secret(text)
            } else {
                kept.appendUnchecked(key: name, value: value)
            }
        }
        self.params = kept
        self.secrets = secrets
    }
}

/// `type: liferay-jsonws`.
public struct JSONWSSourceSpec: Sendable, Hashable {
    /// The command that returns a page of rows; `start` and `end` are added per page.
    public var rows: ServiceCall
    /// The command that returns the row count, sent with page 0 only.
    public var count: ServiceCall?
    /// An order-by comparator class, sent as `+obc`; nil sends `"obc": null` where the service takes one.
    public var sort: String?
    /// The parameter that carries ``sort`` (`obc`; `orderByComparator` in the journal service
    /// of Liferay 7.3 and later, whose `getArticles` renamed it).
    public var sortParam: String = "obc"
    /// The parameter that carries the first row (`start`; `entryQuery.start` for asset entries).
    public var startParam: String
    /// The parameter that carries the end row, exclusive (`end`; `entryQuery.end` for asset entries).
    public var endParam: String
    /// Asset classes (`classes:`) as fully qualified class names, resolved to ids through the
    /// portal's class-name service before the first page and put into the asset entry
    /// query's `classNameIds` of both commands.
    public var classNames: [String] = []
    /// An Asset Publisher's saved selection (`portlet-item-name:`): the rows come from one
    /// call of the Screens asset service that takes it, not from pages (see ``PortletItemSelection``).
    public var portletItem: PortletItemSelection?

    /// Creates a JSON-WS source; with no `count` command the list ends at the first short page.
    public init(rows: ServiceCall, count: ServiceCall? = nil, sort: String? = nil, startParam: String = "start", endParam: String = "end") {
        self.rows = rows
        self.count = count
        self.sort = sort
        self.startParam = startParam
        self.endParam = endParam
    }
}

extension JSONWSSourceSpec: SourceTypeSettings {
    static var typeName: String { "liferay-jsonws" }

    static var ownKeys: [String] { ["rows", "count", "sort", "sort-param", "start-param", "end-param", "classes", "portlet-item-name"] }

    static func decode(_ section: Section, decoder: SpecDecoder, shared: SourceSpec) -> Self? {
        if shared.server == nil { _ = section.required("server", for: "source of type '\(typeName)'") }
        return decoder.decodeJSONWS(section, shared: shared)
    }

    var redactedMembers: [(String, YAMLTextWriter.Value)] {
        if let portletItem {
            // The rows command is the saved selection's own call, not written in the file.
            return [
                ("portlet-item-name", .mapping([("name", .string(portletItem.name)), ("group-id", .raw("\(portletItem.groupId)"))]))
            ]
        }
        var members: [(String, YAMLTextWriter.Value)] = []
        if !classNames.isEmpty { members.append(("classes", .sequence(classNames.map { .string($0) }))) }
        members.append(("rows", rows.redactedValue))
        if let count { members.append(("count", count.redactedValue)) }
        if let sort { members.append(("sort", .string(sort))) }
        if sortParam != "obc" { members.append(("sort-param", .string(sortParam))) }
        if startParam != "start" { members.append(("start-param", .string(startParam))) }
        if endParam != "end" { members.append(("end-param", .string(endParam))) }
        return members
    }

    var cacheIdentity: JSONValue {
        var request: JSONObject = ["type": .string(Self.typeName), "rows": rows.cacheIdentity]
        if let count { request["count"] = count.cacheIdentity }
        // Only when used, so the keys of every other JSON-WS list stay as they were.
        if sortParam != "obc" { request["sortParam"] = .string(sortParam) }
        if !classNames.isEmpty { request["classes"] = .array(classNames.map { .string($0) }) }
        if let portletItem {
            request["portletItemName"] = .string(portletItem.name)
            request["max"] = .int(Int64(portletItem.max))
        }
        return .object(request)
    }

    /// A saved selection's one answer is the whole list: page 0 covers any length.
    func effectivePagination(_ written: PaginationSpec) -> PaginationSpec {
        guard portletItem != nil else { return written }
        var pagination = written
        pagination.firstPageSize = ConfigLimits.maximumPageSize
        return pagination
    }

    /// JSON-WS sorts with `obc`.
    var sortOrder: String? { sort }

    /// The rows command's params, then the count command's; `{a.b}` reaches into an object param.
    func cacheKeyParameter(named name: String) -> (value: JSONValue, isSecret: Bool)? {
        guard !name.isEmpty else { return nil }
        for call in [rows, count].compactMap({ $0 }) {
            if let secret = call.secrets[name] { return (.string(secret.revealed), true) }
            if let value = call.params[name] { return (value, false) }
            var value: JSONValue? = .object(call.params)
            for component in name.split(separator: ".", omittingEmptySubsequences: false) {
                value = value?[String(component)]
            }
            if let value { return (value, false) }
        }
        return nil
    }

    var cacheKeyParameterNames: [String] {
        var names: [String] = []
        let secretNames = rows.secrets.keys.sorted() + (count?.secrets.keys.sorted() ?? [])
        for key in rows.params.keys + (count?.params.keys ?? []) + secretNames where !names.contains(key) {
            names.append(key)
        }
        return names
    }

    func blueprint(_ build: SourceBuild) throws(ScreensPipeError) -> SourceBlueprint {
        let base = try build.requireServer(type: Self.typeName)
        if let portletItem {
            let wire = PortletItemWireFormat(spec: self, selection: portletItem, baseURL: base, locale: build.locale)
            return try build.http(wire, url: base)
        }
        return try build.http(JSONWSWireFormat(spec: self, baseURL: base, locale: build.locale), url: base)
    }
}

extension SourceTypeSpec {
    /// `liferay-jsonws`: batched `POST /api/jsonws/invoke` commands, as Liferay Screens sends.
    public static func liferayJSONWS(_ spec: JSONWSSourceSpec) -> Self { Self(spec) }
}

extension ServiceCall {
    /// Secret params as digests, members in key order at every level, so the order params
    /// were written in does not split one list into two keys.
    fileprivate var cacheIdentity: JSONValue {
        var params = params
        for (name, secret) in secrets { params[name] = .string(CacheKey.digest(secret.revealed)) }
        return ["service": .string(service), "params": CacheKey.canonical(CacheKey.hashingSecretMembers(.object(params)))]
    }

    fileprivate var redactedValue: YAMLTextWriter.Value {
        var members: [(String, YAMLTextWriter.Value)] = [("service", .string(service))]
        if !params.isEmpty || !secrets.isEmpty {
            var shown = params.map { member -> (String, YAMLTextWriter.Value) in
                let isSecret = isSecretParameterName(member.key)
                return (member.key, isSecret ? .raw(redactedPlaceholder) : YAMLTextWriter.value(member.value))
            }
            shown += secrets.keys.sorted().map { ($0, YAMLTextWriter.Value.raw(redactedPlaceholder)) }
            members.append(("params", .mapping(shown)))
        }
        return .mapping(members)
    }
}

extension SpecDecoder {
    fileprivate func decodeJSONWS(_ section: Section, shared: SourceSpec) -> JSONWSSourceSpec? {
        if let node = section["portlet-item-name"] { return decodePortletItem(section, node, source: shared) }
        let rows = section.required("rows", for: "source of type '\(JSONWSSourceSpec.typeName)'")
            .flatMap { Section($0, name: "source.rows", context: context) }.flatMap(decodeServiceCall)
        var count = section.section("count").flatMap(decodeServiceCall)
        // A count command without `params` takes the rows command's: the same list, counted.
        if var call = count, let rows, case .mapping(let countMapping)? = section["count"], countMapping["params"] == nil {
            call.params = rows.params
            call.secrets = rows.secrets
            count = call
        }
        let sort = section.nonEmptyString("sort")
        let startParam = section.nonEmptyString("start-param") ?? "start"
        let endParam = section.nonEmptyString("end-param") ?? "end"
        if case .mapping(let rowsMapping)? = section["rows"], case .mapping(let params)? = rowsMapping["params"] {
            refusePagingParameters([startParam, endParam], in: params, named: "source.rows.params", owner: "liferay-jsonws source")
        }
        let classNames = decodeClasses(section)
        guard let rows else { return nil }
        var spec = JSONWSSourceSpec(rows: rows, count: count, sort: sort, startParam: startParam, endParam: endParam)
        spec.sortParam = section.nonEmptyString("sort-param") ?? "obc"
        spec.classNames = classNames
        applyScreenletRules(to: &spec, section: section, serverContext: shared.serverContext)
        return spec
    }

    private func decodeServiceCall(_ section: Section) -> ServiceCall? {
        section.checkKeys(SpecKeys.serviceCall)
        var params = JSONObject()
        var markedSecrets: [String: Secret] = [:]
        if let node = section["params"] {
            if case .mapping(var mapping) = node {
                // `name: { secret: value }` marks a secret whose name does not say so.
                mapping.pairs.removeAll { pair in
                    guard case .mapping(let inner) = pair.value, inner.pairs.count == 1, inner.pairs[0].key.text == "secret",
                        case .scalar(let scalar) = inner.pairs[0].value
                    else { return false }
                    markedSecrets[pair.key.text] = Secret(scalar.text)
                    return true
                }
                params = context.jsonObject(mapping, key: "\(section.name).params")
            } else {
                context.fail("expected a mapping for 'params', found \(node.foundDescription)", at: node.location)
            }
        }
        guard let node = section.required("service"), let service = context.nonEmptyString(node, key: "service") else { return nil }
        guard service.hasPrefix("/") else {
            context.fail(
                "a JSON-WS service starts with '/' (such as /bookmarks.bookmarksentry/get-entries), found '\(service)'",
                at: node.location)
            return nil
        }
        var call = ServiceCall(service: service, params: params)
        call.secrets.merge(markedSecrets) { _, marked in marked }
        return call
    }
}
