/// Where credentials may go: the one origin the pipeline names, over https or to this
/// machine. Every request the run makes passes through ``check(_:configured:source:)``
/// before it is sent, so next links, `Link` headers and written URLs obey the same rule.
enum CredentialPolicy {
    /// What to do with one request.
    enum Decision: Equatable {
        /// Send it as built, credentials included.
        case sendWithCredentials
        /// Send it with the pipeline's credentials removed (another origin, opted in).
        case sendWithoutCredentials
    }

    /// Whether `request` may be sent, and with or without credentials.
    ///
    /// - Parameters:
    ///   - url: the URL the request will contact.
    ///   - configured: the URL the pipeline names (`server`, or a REST source's `url`).
    ///   - hasCredentials: whether the pipeline adds credentials (auth or secret headers).
    static func check(
        url: String, configured: String, hasCredentials: Bool, source: SourceSpec
    ) throws(ScreensPipeError) -> Decision {
        let target = URLParts(url)
        let home = URLParts(configured)
        guard target.origin == home.origin else {
            guard source.followOtherOrigins else {
                throw ScreensPipeError.configuration(
                    "the server sent a link to another origin (\(target.origin), configured \(home.origin)); "
                        + "credentials go only to the configured origin: set source.follow-other-origins: true to follow it without credentials")
            }
            // Credentials written into the URL itself still count.
            try requireSafeTransport(target, sendsCredentials: target.userinfo != nil, source: source)
            return .sendWithoutCredentials
        }
        try requireSafeTransport(target, sendsCredentials: hasCredentials || target.userinfo != nil, source: source)
        return .sendWithCredentials
    }

    /// Credentials over plain http can be read by anyone on the path; allow them only to
    /// this machine, and not through a proxy (which reads a plain http request whole),
    /// unless the pipeline says so explicitly. Over https a proxy only tunnels (`CONNECT`).
    static func requireSafeTransport(_ url: URLParts, sendsCredentials: Bool, source: SourceSpec) throws(ScreensPipeError) {
        guard sendsCredentials, url.schemeName != "https", !source.allowInsecureAuth else { return }
        if let proxy = source.proxy.endpoint(for: String(url.scheme) + String(url.hostAndPort) + "/") {
            throw ScreensPipeError.configuration(
                "refusing to send credentials over plain \(url.schemeName) to \(url.host) through the proxy \(proxy.shownURL), which would read them; use https (the proxy then only tunnels), or set source.allow-insecure-auth: true")
        }
        guard !url.isLoopback else { return }
        throw ScreensPipeError.configuration(
            "refusing to send credentials over plain \(url.schemeName) to \(url.host); use https, or set source.allow-insecure-auth: true")
    }
}
