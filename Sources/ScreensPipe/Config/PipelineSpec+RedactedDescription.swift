import ScreensBus

extension PipelineSpec {
    /// The spec as readable YAML in pipeline-file keys, defaults filled in, with passwords,
    /// tokens, header values, URL credentials and secret-named parameters shown as `<redacted>`.
    /// This is what `plan` prints.
    public func redactedDescription() -> String {
        typealias Value = YAMLTextWriter.Value
        var members: [(String, Value)] = [("name", .string(name)), ("source", .mapping(source.redactedMembers))]
        if let convert { members.append(("convert", .mapping(convert.describedMembers))) }
        if let cache { members.append(("cache", .mapping(cache.describedMembers))) }
        if let filter { members.append(("filter", .mapping(filter.describedMembers))) }
        members.append(("sink", .mapping(sink.describedMembers)))
        var writer = YAMLTextWriter()
        writer.write(members)
        return writer.text
    }
}

/// How durations and sizes are written back: the largest unit that is exact.
enum ConfigUnitText {
    static func duration(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = attoseconds / 1_000_000_000
        guard nanoseconds % 1_000_000 == 0 else {
            return "\(Double(seconds) * 1000 + Double(attoseconds) / 1e15)ms"
        }
        let milliseconds = seconds * 1000 + nanoseconds / 1_000_000
        for (unit, size) in [("h", Int64(3_600_000)), ("m", 60_000), ("s", 1000)] where milliseconds % size == 0 && milliseconds != 0 {
            return "\(milliseconds / size)\(unit)"
        }
        return "\(milliseconds)ms"
    }

    static func size(_ bytes: Int) -> String {
        for (unit, size) in [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] where bytes % size == 0 && bytes != 0 {
            return "\(bytes / size)\(unit)"
        }
        return "\(bytes)"
    }
}

extension SourceSpec {
    fileprivate var redactedMembers: [(String, YAMLTextWriter.Value)] {
        var members: [(String, YAMLTextWriter.Value)] = [("type", .raw(protocolSpec.typeName))]
        let address: YAMLTextWriter.Value? =
            switch server {
            case .sandbox?: .raw("sandbox")
            case .url(let url)?: .string(redactedURL(url, markingUserinfo: true))
            case nil: nil
            }
        if let address, let context = serverContext {
            var keys: [(String, YAMLTextWriter.Value)] = [("url", address)]
            if let companyId = context.companyId { keys.append(("company-id", .raw("\(companyId)"))) }
            if let groupId = context.groupId { keys.append(("group-id", .raw("\(groupId)"))) }
            members.append(("server", .mapping(keys)))
        } else if let address {
            members.append(("server", address))
        }
        switch auth {
        case .basic(let username, _)?:
            let basic: [(String, YAMLTextWriter.Value)] = [
                ("username", .string(username)), ("password", .raw(redactedPlaceholder)),
            ]
            members.append(("auth", .mapping([("basic", .mapping(basic))])))
        case .bearer?:
            members.append(("auth", .mapping([("bearer", .raw(redactedPlaceholder))])))
        case nil: break
        }
        members += protocolSpec.redactedMembers
        members.append((
            "pagination",
            .mapping([
                ("first-page-size", .raw("\(pagination.firstPageSize)")), ("page-size", .raw("\(pagination.pageSize)")),
                ("prefetch", .raw("\(pagination.prefetch)")), ("max-pages", .raw("\(pagination.maxPages)")),
            ])))
        switch protocolSpec {
        case .file, .custom: return members
        case .liferayJSONWS, .liferayHeadless, .rest: break
        }
        members += [
            ("timeout", .raw(ConfigUnitText.duration(timeout))),
            ("connect-timeout", .raw(ConfigUnitText.duration(connectTimeout))),
            (
                "retry",
                .mapping([
                    ("attempts", .raw("\(retry.attempts)")), ("backoff", .raw(ConfigUnitText.duration(retry.backoff))),
                    ("max-backoff", .raw(ConfigUnitText.duration(retry.maxBackoff))),
                ])
            ),
            ("max-response-size", .raw(ConfigUnitText.size(maxResponseSize))),
            ("allow-insecure-auth", .raw("\(allowInsecureAuth)")),
        ]
        if followOtherOrigins { members.append(("follow-other-origins", .raw("true"))) }
        if let caFile { members.append(("ca-file", .string(caFile))) }
        members.append(("insecure-skip-tls-verify", .raw("\(insecureSkipTLSVerify)")))
        if !headers.isEmpty {
            // Any header may carry a credential, so none of their values are shown.
            members.append(("headers", .mapping(headers.map { ($0.name, .raw(redactedPlaceholder)) })))
        }
        return members
    }
}

extension SourceProtocol {
    fileprivate var redactedMembers: [(String, YAMLTextWriter.Value)] {
        switch self {
        case .liferayJSONWS(let spec):
            if let selection = spec.portletItem {
                // The rows command is the saved selection's own call, not written in the file.
                return [
                    (
                        "portlet-item-name",
                        .mapping([("name", .string(selection.name)), ("group-id", .raw("\(selection.groupId)"))])
                    )
                ]
            }
            var members: [(String, YAMLTextWriter.Value)] = []
            if !spec.classNames.isEmpty { members.append(("classes", .sequence(spec.classNames.map { .string($0) }))) }
            members.append(("rows", spec.rows.redactedValue))
            if let count = spec.count { members.append(("count", count.redactedValue)) }
            if let sort = spec.sort { members.append(("sort", .string(sort))) }
            if spec.startParam != "start" { members.append(("start-param", .string(spec.startParam))) }
            if spec.endParam != "end" { members.append(("end-param", .string(spec.endParam))) }
            return members
        case .liferayHeadless(let spec):
            var members: [(String, YAMLTextWriter.Value)] = [("path", .string(redactedURL(spec.path, markingUserinfo: true)))]
            if !spec.query.isEmpty { members.append(("query", spec.query.redactedValue)) }
            return members
        case .rest(let spec):
            var members: [(String, YAMLTextWriter.Value)] = [("url", .string(redactedURL(spec.url, markingUserinfo: true)))]
            if let records = spec.records { members.append(("records", .string(records))) }
            if let total = spec.total { members.append(("total", .string(total))) }
            if !spec.query.isEmpty { members.append(("query", spec.query.redactedValue)) }
            members.append(("paginate", .mapping(spec.paginate.describedMembers)))
            return members
        case .file(let spec):
            var members: [(String, YAMLTextWriter.Value)] = [("path", .string(spec.path))]
            if let records = spec.records { members.append(("records", .string(records))) }
            return members
        case .custom(let fetcher):
            return [("summary", .string(fetcher.summary))]
        }
    }
}

extension ServiceCall {
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

extension [QueryParameter] {
    fileprivate var redactedValue: YAMLTextWriter.Value {
        .mapping(map { ($0.name, $0.text.isSecret || isSecretParameterName($0.name) ? .raw(redactedPlaceholder) : .string($0.value)) })
    }
}

extension RESTPaginationStyle {
    fileprivate var describedMembers: [(String, YAMLTextWriter.Value)] {
        switch self {
        case .offset(let offsetParam, let limitParam):
            [("style", .raw("offset")), ("offset-param", .string(offsetParam)), ("limit-param", .string(limitParam))]
        case .page(let pageParam, let sizeParam, let firstPage):
            [
                ("style", .raw("page")), ("page-param", .string(pageParam)), ("size-param", .string(sizeParam)),
                ("first-page", .raw("\(firstPage)")),
            ]
        case .cursor(let cursorParam, let cursorPath, let sizeParam):
            [
                ("style", .raw("cursor")), ("cursor-param", .string(cursorParam)), ("cursor-path", .string(cursorPath)),
                ("size-param", sizeParam.map { .string($0) } ?? .raw("null")),
            ]
        case .nextLink(let nextPath):
            [("style", .raw("next-link")), ("next-path", .string(nextPath))]
        case .linkHeader:
            [("style", .raw("link-header"))]
        }
    }
}

extension ConvertSpec {
    fileprivate var describedMembers: [(String, YAMLTextWriter.Value)] {
        var members: [(String, YAMLTextWriter.Value)] = []
        if let model { members.append(("model", .raw(model.rawValue))) }
        if let locale { members.append(("locale", .string(locale))) }
        if let fields, !fields.isEmpty {
            members.append(("fields", .mapping(fields.map { ($0.name, $0.describedValue) })))
        }
        members.append(("on-invalid", .raw(onInvalid.rawValue)))
        return members
    }
}

extension FieldMapping {
    fileprivate var describedValue: YAMLTextWriter.Value {
        guard type != nil || defaultValue != nil || required || localized else { return .string(from) }
        var members: [(String, YAMLTextWriter.Value)] = [("from", .string(from))]
        if let type { members.append(("type", .raw(type.rawValue))) }
        if let defaultValue { members.append(("default", YAMLTextWriter.value(defaultValue))) }
        if required { members.append(("required", .raw("true"))) }
        if localized { members.append(("localized", .raw("true"))) }
        return .mapping(members)
    }
}

extension CacheSpec {
    fileprivate var describedMembers: [(String, YAMLTextWriter.Value)] {
        var members: [(String, YAMLTextWriter.Value)] = [("policy", .raw(policy.rawValue))]
        if let key { members.append(("key", .string(key))) }
        if let ttl { members.append(("ttl", .raw(ConfigUnitText.duration(ttl)))) }
        if let path { members.append(("path", .string(path))) }
        return members
    }
}

extension FilterSpec {
    fileprivate var describedMembers: [(String, YAMLTextWriter.Value)] {
        var members: [(String, YAMLTextWriter.Value)] = []
        if let expression { members.append(("where", .string(expression))) }
        if let limit { members.append(("limit", .raw("\(limit)"))) }
        return members
    }
}

extension SinkSpec {
    fileprivate var describedMembers: [(String, YAMLTextWriter.Value)] {
        switch destination {
        case .stdout: [("type", .raw("stdout")), ("format", .raw(format.rawValue))]
        case .file(let path): [("type", .raw("file")), ("path", .string(path)), ("format", .raw(format.rawValue))]
        case .discard: [("type", .raw("discard"))]
        }
    }
}
