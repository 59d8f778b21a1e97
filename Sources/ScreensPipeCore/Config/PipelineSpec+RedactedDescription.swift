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
        if let incremental { members.append(("incremental", .mapping(incremental.describedMembers))) }
        if let follow { members.append(("follow", .mapping(follow.describedMembers))) }
        var writer = YAMLTextWriter()
        writer.write(members)
        return writer.text
    }
}

extension SourceSpec {
    fileprivate var redactedMembers: [(String, YAMLTextWriter.Value)] {
        var members: [(String, YAMLTextWriter.Value)] = [("type", .raw(type.typeName))]
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
        case .oauth2(let spec)?:
            members.append(("auth", .mapping([("oauth2", .mapping(spec.redactedMembers))])))
        case .cookie(let spec)?:
            members.append(("auth", .mapping([("cookie", .mapping(spec.redactedMembers))])))
        case nil: break
        }
        members += type.settings.redactedMembers
        members.append((
            "pagination",
            .mapping([
                ("first-page-size", .raw("\(pagination.firstPageSize)")), ("page-size", .raw("\(pagination.pageSize)")),
                ("prefetch", .raw(pagination.adaptivePrefetch ? "auto" : "\(pagination.prefetch)")),
            ] + (pagination.adaptivePrefetch ? [("max-prefetch", .raw("\(pagination.prefetch)"))] : []) + [
                ("max-pages", .raw("\(pagination.maxPages)")),
            ])))
        guard Swift.type(of: type.settings).isNetworked else { return members }
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
        members += transportRouteMembers
        if !headers.isEmpty {
            // Any header may carry a credential, so none of their values are shown.
            members.append(("headers", .mapping(headers.map { ($0.name, .raw(redactedPlaceholder)) })))
        }
        if let rateLimit {
            members.append((
                "rate-limit",
                .mapping([
                    ("requests", .raw("\(rateLimit.requests)")), ("per", .raw(ConfigUnitText.duration(rateLimit.per))),
                    ("burst", .raw("\(rateLimit.burst)")), ("max-wait", .raw(ConfigUnitText.duration(rateLimit.maxWait))),
                ])))
        }
        return members
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
        if let postgres {
            // The URL without its password; the TLS options as given.
            members.append(("url", .string(postgres.description)))
            members.append(("tls", .raw(postgres.tls.rawValue)))
            if let caFile = postgres.caFile { members.append(("ca-file", .string(caFile))) }
        }
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
        case .registered(let sink): sink.configuration.describedMembers
        }
    }
}
