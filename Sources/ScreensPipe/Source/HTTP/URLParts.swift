/// An absolute URL cut at the places redaction and the credential check care about:
/// `scheme://` `userinfo@` `host:port` `/path?query#fragment`.
///
/// Hand-cut rather than Foundation's `URL`, which rejects some of the odd but sendable
/// URLs users write and would make redaction fail open.
struct URLParts {
    /// `http://`, or empty when the text has no scheme.
    let scheme: Substring
    /// `user:password`, without the `@`; nil when there is none.
    let userinfo: Substring?
    /// `host:port` (`[::1]:8080` for IPv6).
    let hostAndPort: Substring
    /// Everything after the authority: path, query and fragment.
    let rest: Substring

    init(_ url: String) {
        var text = Substring(url)
        guard let schemeEnd = text.firstRange(of: "://") else {
            scheme = text[text.startIndex..<text.startIndex]
            userinfo = nil
            hostAndPort = scheme
            rest = text
            return
        }
        scheme = text[..<schemeEnd.upperBound]
        text = text[schemeEnd.upperBound...]
        // The authority ends at the first '/', '?' or '#'; userinfo is up to its last '@'.
        let authorityEnd = text.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? text.endIndex
        let authority = text[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") {
            userinfo = authority[..<at]
            hostAndPort = authority[authority.index(after: at)...]
        } else {
            userinfo = nil
            hostAndPort = authority
        }
        rest = text[authorityEnd...]
    }

    /// The host name in lower case, without brackets or port.
    var host: String {
        if hostAndPort.hasPrefix("["), let close = hostAndPort.firstIndex(of: "]") {
            return String(hostAndPort[hostAndPort.index(after: hostAndPort.startIndex)..<close]).lowercased()
        }
        let host = hostAndPort.lastIndex(of: ":").map { hostAndPort[..<$0] } ?? hostAndPort
        return host.lowercased()
    }

    /// Whether the host is this machine (`localhost`, `127.0.0.0/8`, `::1`).
    var isLoopback: Bool {
        let host = self.host
        return host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
