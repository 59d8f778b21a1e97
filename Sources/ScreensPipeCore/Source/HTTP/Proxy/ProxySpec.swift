internal import Foundation

/// `proxy:` of a networked source, a `liferay` sink and their OAuth 2 token endpoint: how
/// requests reach the server.
///
/// ```yaml
/// proxy: none                              # the default: connect directly
/// proxy: env                               # https_proxy, http_proxy, all_proxy, no_proxy, as curl reads them
/// proxy: http://proxy.corp.example:3128    # this proxy for every request
/// proxy: { url: http://proxy.corp.example:3128, username: alice, password: ${PROXY_PASSWORD} }
/// ```
///
/// An https origin is reached through a `CONNECT` tunnel, so the proxy sees the host name
/// and nothing else; a plain http origin's requests pass through the proxy in the clear.
/// The proxy's credentials go to the proxy only (`Proxy-Authorization`), never to the
/// origin, and are redacted wherever the setting is shown.
public enum ProxySpec: Sendable, Hashable {
    /// Connect directly; the proxy variables of the environment are ignored.
    case none
    /// The proxy the environment names for each request's URL, as curl picks it.
    case environment
    /// This proxy for every request.
    case proxy(ProxyEndpoint)

    /// The proxy a request for `url` goes through, or nil for a direct connection.
    /// `environment` is the process environment unless a test gives its own.
    func endpoint(for url: String, environment: [String: String]? = nil) -> ProxyEndpoint? {
        switch self {
        case .none: return nil
        case .proxy(let endpoint): return endpoint
        case .environment: return ProxyEnvironment(environment ?? ProxyEnvironment.processVariables()).endpoint(for: url)
        }
    }
}

/// One proxy: its URL without credentials, and the credentials it asks for.
public struct ProxyEndpoint: Sendable, Hashable {
    /// `http://host:port` (or `https://` for a proxy spoken to over TLS), no userinfo.
    public var url: String
    /// The user name sent to the proxy (`Proxy-Authorization`); nil sends none.
    public var username: String?
    /// The password sent to the proxy with ``username``.
    public var password: Secret?

    /// Creates an endpoint; credentials written into `url` (`http://user:password@host`)
    /// are taken out of it, percent-decoded, unless `username` is given.
    public init(url: String, username: String? = nil, password: Secret? = nil) {
        let parts = URLParts(url)
        self.url = String(parts.scheme) + String(parts.hostAndPort) + String(parts.rest)
        if let userinfo = parts.userinfo, username == nil {
            let colon = userinfo.firstIndex(of: ":")
            let user = colon.map { userinfo[..<$0] } ?? userinfo
            self.username = String(user).removingPercentEncoding ?? String(user)
            self.password = colon.map { Secret(String(userinfo[userinfo.index(after: $0)...]).removingPercentEncoding ?? "") }
        } else {
            self.username = username
            self.password = password
        }
    }

    /// The proxy as `plan` and messages show it: its URL, and `<redacted>@` when it has
    /// credentials, so a reader sees that some are set and nothing of them.
    public var shownURL: String {
        guard username != nil else { return redactedURL(url) }
        let parts = URLParts(url)
        return String(parts.scheme) + redactedPlaceholder + "@" + String(parts.hostAndPort) + String(parts.rest)
    }
}

/// The proxy variables of an environment, read as libcurl reads them (lib/url.c,
/// `detect_proxy` and `check_noproxy`):
/// - `http_proxy` (lower case only: `HTTP_PROXY` can be set by a CGI request's `Proxy:`
///   header) for http URLs, `https_proxy` or `HTTPS_PROXY` for https URLs;
/// - else `all_proxy` or `ALL_PROXY`;
/// - `no_proxy` or `NO_PROXY`: a comma-separated list of host names (each matching itself
///   and its subdomains; a leading `.` is ignored) or IP addresses, or `*` for every host.
struct ProxyEnvironment {
    let variables: [String: String]

    init(_ variables: [String: String]) {
        self.variables = variables
    }

    /// Every name ``endpoint(for:)`` reads.
    static let names = ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"]

    /// The proxy variables of this process, read one by one: every request resolves its
    /// proxy, and `ProcessInfo.environment` copies the whole environment each time it is
    /// read (1-2 % of a run's CPU when it was read twice a page).
    static func processVariables() -> [String: String] {
        var variables: [String: String] = [:]
        for name in names {
            if let value = getenv(name) { variables[name] = String(cString: value) }
        }
        return variables
    }

    func endpoint(for url: String) -> ProxyEndpoint? {
        let target = URLParts(url)
        guard !bypasses(host: target.host) else { return nil }
        let names = target.schemeName == "https" ? ["https_proxy", "HTTPS_PROXY"] : ["http_proxy"]
        guard let text = first(of: names + ["all_proxy", "ALL_PROXY"]) else { return nil }
        // curl takes a proxy without a scheme as http://.
        return ProxyEndpoint(url: text.contains("://") ? text : "http://" + text)
    }

    private func first(of names: [String]) -> String? {
        for name in names {
            if let value = variables[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty { return value }
        }
        return nil
    }

    /// Whether `no_proxy` names `host`.
    func bypasses(host: String) -> Bool {
        guard let list = first(of: ["no_proxy", "NO_PROXY"]) else { return false }
        let host = host.hasSuffix(".") ? String(host.dropLast()) : host
        for entry in list.split(separator: ",") {
            var name = entry.trimmingCharacters(in: .whitespaces).lowercased()
            if name == "*" { return true }
            if name.hasPrefix(".") { name.removeFirst() }
            if name.hasSuffix(".") { name.removeLast() }
            if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
            guard !name.isEmpty else { continue }
            if host == name || host.hasSuffix("." + name) { return true }
        }
        return false
    }
}
