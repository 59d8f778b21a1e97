/// `auth: { oauth2: { token-url, grant, client-id, client-secret, refresh-token, username,
/// password, scope, client-auth, allow-other-token-origin } }`.
extension SpecDecoder {
    func decodeOAuth2(_ section: Section) -> OAuth2Spec? {
        section.checkKeys(SpecKeys.oauth2Auth)
        let grantName =
            section["grant"].flatMap {
                context.choice($0, key: "grant", ["client-credentials": "client-credentials", "refresh-token": "refresh-token", "password": "password"])
            } ?? "client-credentials"
        let clientID = section.required("client-id").flatMap { context.nonEmptyString($0, key: "client-id") }
        let clientSecret = section.nonEmptyString("client-secret").map { Secret($0) }
        let refreshToken = section.nonEmptyString("refresh-token").map { Secret($0) }
        let tokenURL = section.nonEmptyString("token-url") ?? "/o/oauth2/token"
        if tokenURL.contains(where: { $0.isWhitespace || $0.isNewline }), let node = section["token-url"] {
            context.fail("'token-url' must be a path or an http(s) URL without spaces", at: node.location)
        }
        let grant: OAuth2Spec.Grant
        if grantName != "password" {
            for key in ["username", "password"] {
                if let node = section[key] { context.fail("'\(key)' applies to grant password only", at: node.location) }
            }
        }
        switch grantName {
        case "password":
            if let node = section["refresh-token"] {
                context.fail("'refresh-token' applies to grant refresh-token only: grant password keeps the one its answer brings", at: node.location)
            }
            let username = section.required("username").flatMap { context.nonEmptyString($0, key: "username") }
            let password = section.required("password").flatMap { context.nonEmptyString($0, key: "password") }
            guard let username, let password else { return nil }
            // The client secret stays optional: RFC 6749 §4.3.2 lets a public client (a
            // native app without a secret, as Liferay registers them) use this grant.
            grant = .password(username: username, password: Secret(password))
        case "refresh-token":
            guard let refreshToken else {
                context.fail("grant refresh-token needs 'refresh-token' (for example ${LIFERAY_REFRESH_TOKEN})", at: section.location)
                return nil
            }
            grant = .refreshToken(refreshToken)
        default:
            if let node = section["refresh-token"] {
                context.fail("'refresh-token' applies to grant refresh-token only", at: node.location)
            }
            if clientSecret == nil {
                context.fail("grant client-credentials needs 'client-secret' (for example ${LIFERAY_CLIENT_SECRET})", at: section.location)
            }
            grant = .clientCredentials
        }
        guard let clientID else { return nil }
        var spec = OAuth2Spec(tokenURL: tokenURL, grant: grant, clientID: clientID, clientSecret: clientSecret)
        spec.scope = section.nonEmptyString("scope")
        if let value = section.choice("client-auth", OAuth2Spec.ClientAuthentication.self) { spec.clientAuthentication = value }
        if let value = section.bool("allow-other-token-origin") { spec.allowOtherTokenOrigin = value }
        if let node = section["proxy"] { spec.proxy = decodeProxy(node, in: section) }
        return spec
    }
}

extension OAuth2Spec {
    /// The setting as `plan` prints it: the client id shown, secrets as a marker.
    var redactedMembers: [(String, YAMLTextWriter.Value)] {
        var members: [(String, YAMLTextWriter.Value)] = [
            ("token-url", .string(redactedURL(tokenURL, markingUserinfo: true))), ("grant", .raw(grantName)),
            ("client-id", .string(clientID)),
        ]
        if clientSecret != nil { members.append(("client-secret", .raw(redactedPlaceholder))) }
        if case .refreshToken = grant { members.append(("refresh-token", .raw(redactedPlaceholder))) }
        if case .password(let username, _) = grant {
            members.append(("username", .string(username)))
            members.append(("password", .raw(redactedPlaceholder)))
        }
        if let scope { members.append(("scope", .string(scope))) }
        members.append(("client-auth", .raw(clientAuthentication.rawValue)))
        if allowOtherTokenOrigin { members.append(("allow-other-token-origin", .raw("true"))) }
        if let proxy { members.append(("proxy", proxy.shownValue)) }
        return members
    }

    /// The token endpoint as an absolute URL, resolved against the source's URL, after the
    /// origin rule: the client secret goes to the source's own origin unless
    /// `allow-other-token-origin` says otherwise, and never over plain http to another machine.
    func resolvedTokenURL(against configuredURL: String, source: SourceSpec) throws(ScreensPipeError) -> String {
        let url = URLText.resolve(tokenURL, against: configuredURL)
        let target = URLParts(url)
        guard ["http", "https"].contains(target.schemeName) else {
            throw .configuration("auth.oauth2.token-url must be a path or an http(s) URL, found '\(redactedURL(tokenURL))'")
        }
        let home = URLParts(configuredURL)
        if target.origin != home.origin, !allowOtherTokenOrigin {
            throw .configuration(
                "auth.oauth2.token-url is on another origin (\(target.origin), the source is \(home.origin)); the client secret goes only to the source's origin: set auth.oauth2.allow-other-token-origin: true to send it there")
        }
        try CredentialPolicy.requireSafeTransport(target, sendsCredentials: true, source: tokenEndpointSettings(of: source))
        return url
    }
}
