internal import Foundation

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

    /// Whether the host is this machine: `localhost`, an IPv4 literal in `127.0.0.0/8`, or `::1`.
    ///
    /// The address is parsed, not matched on its text: `127.example.com` is a name anyone
    /// can register and is not loopback.
    var isLoopback: Bool {
        let host = self.host
        if host == "localhost" || host == "localhost." { return true }
        if let octets = Self.ipv4Octets(host) { return octets[0] == 127 }
        return Self.isIPv6Loopback(host)
    }

    /// The scheme in lower case, without `://` (`HTTP://` and `http://` are the same scheme).
    var schemeName: String {
        String(scheme.dropLast(3)).lowercased()
    }

    /// The port the URL names, or the scheme's default (80 for http, 443 for https).
    var port: Int? {
        var portText: Substring?
        if hostAndPort.hasPrefix("[") {
            if let close = hostAndPort.firstIndex(of: "]") {
                let after = hostAndPort[hostAndPort.index(after: close)...]
                if after.hasPrefix(":") { portText = after.dropFirst() }
            }
        } else if let colon = hostAndPort.lastIndex(of: ":") {
            portText = hostAndPort[hostAndPort.index(after: colon)...]
        }
        if let portText, !portText.isEmpty { return Int(portText) }
        switch schemeName {
        case "http": return 80
        case "https": return 443
        default: return nil
        }
    }

    /// `scheme://host:port` with the default port spelled out, for comparing where requests go.
    var origin: String {
        let hostText = host.contains(":") ? "[\(host)]" : host
        return "\(schemeName)://\(hostText):\(port.map(String.init) ?? "")"
    }

    /// Dotted-quad IPv4 in decimal (`127.0.0.1`); nil for anything else.
    private static func ipv4Octets(_ text: String) -> [Int]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var octets: [Int] = []
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }),
                let value = Int(part), value <= 255
            else { return nil }
            octets.append(value)
        }
        return octets
    }

    /// `::1` in any spelling (`0:0:0:0:0:0:0:1`, `::0001`).
    private static func isIPv6Loopback(_ text: String) -> Bool {
        guard text.contains(":"), text.allSatisfy({ $0.isHexDigit || $0 == ":" }) else { return false }
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return false }
        func groups(_ part: String) -> [Int]? {
            if part.isEmpty { return [] }
            var values: [Int] = []
            for group in part.split(separator: ":", omittingEmptySubsequences: false) {
                guard (1...4).contains(group.count), let value = Int(group, radix: 16) else { return nil }
                values.append(value)
            }
            return values
        }
        guard let head = groups(halves[0]) else { return false }
        var all = head
        if halves.count == 2 {
            guard let tail = groups(halves[1]), head.count + tail.count < 8 else { return false }
            all += Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        }
        return all.count == 8 && all.dropLast().allSatisfy { $0 == 0 } && all.last == 1
    }
}
