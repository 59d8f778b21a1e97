/// `proxy:`, `client-cert:`, `client-key:` and `client-key-passphrase:` of a networked
/// source or a `liferay` sink (the OAuth 2 token endpoint uses its section's).
extension SpecDecoder {
    /// The keys this file decodes, for the sections that accept them.
    static let transportRouteKeys = ["proxy", "client-cert", "client-key", "client-key-passphrase"]

    func decodeTransportRoute(_ section: Section, into spec: inout SourceSpec) {
        if let node = section["proxy"] { spec.proxy = decodeProxy(node, in: section) ?? .none }
        spec.clientCertificate = decodeClientCertificate(section)
    }

    /// `none`, `env`, a URL (credentials in it allowed), or `{ url, username, password }`.
    func decodeProxy(_ node: YAMLNode, in parent: Section) -> ProxySpec? {
        if case .mapping = node {
            guard let section = Section(node, name: "\(parent.name).proxy", context: context) else { return nil }
            section.checkKeys(["url", "username", "password"])
            guard let urlNode = section.required("url"), let text = context.nonEmptyString(urlNode, key: "url"),
                let url = proxyURL(text, at: urlNode.location)
            else { return nil }
            let username = section.nonEmptyString("username")
            let password = section.string("password")
            if username == nil, let node = section["password"] {
                context.fail("'password' of \(section.name) needs 'username'", at: node.location)
                return nil
            }
            if username != nil, URLParts(url).userinfo != nil {
                context.fail("give the proxy's credentials in its url or as username and password, not both", at: urlNode.location)
                return nil
            }
            return .proxy(ProxyEndpoint(url: url, username: username, password: password.map { Secret($0) }))
        }
        guard let text = context.nonEmptyString(node, key: "proxy") else { return nil }
        switch text {
        case "none": return ProxySpec.none
        case "env": return .environment
        default: return proxyURL(text, at: node.location).map { .proxy(ProxyEndpoint(url: $0)) }
        }
    }

    /// An `http://` or `https://` proxy URL with a host; its text is shown without userinfo.
    private func proxyURL(_ text: String, at location: SourceLocation) -> String? {
        let parts = URLParts(text)
        guard ["http", "https"].contains(parts.schemeName), !parts.host.isEmpty, !text.contains(where: { $0.isWhitespace }),
            parts.rest.isEmpty || parts.rest == "/"
        else {
            context.fail(
                "expected 'none', 'env' or an http:// or https:// proxy URL (http://host:port) for 'proxy', found '\(redactedURL(text, markingUserinfo: true))'",
                at: location)
            return nil
        }
        return text
    }

    private func decodeClientCertificate(_ section: Section) -> ClientCertificateSpec? {
        let certificate = section.nonEmptyString("client-cert").map(relativeToPipelineFile)
        let key = section.nonEmptyString("client-key").map(relativeToPipelineFile)
        let passphrase = section.string("client-key-passphrase").map { Secret($0) }
        guard let certificate else {
            for name in ["client-key", "client-key-passphrase"] {
                if let node = section[name] { context.fail("'\(name)' needs 'client-cert' (the certificate it belongs to)", at: node.location) }
            }
            return nil
        }
        return ClientCertificateSpec(certificateFile: certificate, keyFile: key, keyPassphrase: passphrase)
    }
}

extension ProxySpec {
    /// The setting as `plan` shows it: `none`, `env`, or the URL with `<redacted>@` for
    /// credentials.
    var shownValue: YAMLTextWriter.Value {
        switch self {
        case .none: .raw("none")
        case .environment: .raw("env")
        case .proxy(let endpoint): .string(endpoint.shownURL)
        }
    }
}

extension SourceSpec {
    /// Checks what can be checked before the first request: the client certificate's files.
    /// Every HTTP source, the `liferay` sink and so their token endpoints call it.
    func checkTransportRoute() throws(ScreensPipeError) {
        try clientCertificate?.check()
    }

    /// `proxy`, `client-cert`, `client-key` and `client-key-passphrase` as `plan` shows them:
    /// the proxy without its credentials (`<redacted>@` when it has some), the passphrase
    /// as a marker.
    var transportRouteMembers: [(String, YAMLTextWriter.Value)] {
        var members: [(String, YAMLTextWriter.Value)] = []
        if proxy != .none { members.append(("proxy", proxy.shownValue)) }
        if let clientCertificate {
            members.append(("client-cert", .string(clientCertificate.certificateFile)))
            if let key = clientCertificate.keyFile { members.append(("client-key", .string(key))) }
            if clientCertificate.keyPassphrase != nil { members.append(("client-key-passphrase", .raw(redactedPlaceholder))) }
        }
        return members
    }
}
