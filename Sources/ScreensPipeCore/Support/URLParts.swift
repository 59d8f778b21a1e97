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
        // Cut on the bytes, as libcurl reads the URL: a '/' followed by a combining mark is
        // still a '/' to it, though not a Character of its own. Byte searches are also what
        // keeps this cheap enough to run for every request.
        var text = Substring(url)
        guard let schemeEnd = Self.endOfSchemeSeparator(in: text) else {
            scheme = text[text.startIndex..<text.startIndex]
            userinfo = nil
            hostAndPort = scheme
            rest = text
            return
        }
        scheme = text[..<schemeEnd]
        text = text[schemeEnd...]
        // The authority ends at the first '/', '?' or '#'; userinfo is up to its last '@'.
        let authorityEnd = text.utf8.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? text.endIndex
        let authority = text[..<authorityEnd]
        if let at = authority.utf8.lastIndex(of: UInt8(ascii: "@")) {
            userinfo = authority[..<at]
            hostAndPort = authority[authority.utf8.index(after: at)...]
        } else {
            userinfo = nil
            hostAndPort = authority
        }
        rest = text[authorityEnd...]
    }

    /// Where the first `://` in `text` ends, by bytes.
    private static func endOfSchemeSeparator(in text: Substring) -> Substring.Index? {
        let bytes = text.utf8
        var start = bytes.startIndex
        while let colon = bytes[start...].firstIndex(of: UInt8(ascii: ":")) {
            let rest = bytes[bytes.index(after: colon)...]
            if rest.starts(with: "//".utf8) { return bytes.index(colon, offsetBy: 3) }
            start = rest.startIndex
        }
        return nil
    }

    /// The host name in lower case, without brackets or port.
    var host: String {
        let bytes = hostAndPort.utf8
        if bytes.first == UInt8(ascii: "["), let close = bytes.firstIndex(of: UInt8(ascii: "]")) {
            return String(hostAndPort[bytes.index(after: bytes.startIndex)..<close]).lowercased()
        }
        let host = bytes.lastIndex(of: UInt8(ascii: ":")).map { hostAndPort[..<$0] } ?? hostAndPort
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
        String(decoding: scheme.utf8.dropLast(3), as: UTF8.self).lowercased()
    }

    /// The port the URL names, or the scheme's default (80 for http, 443 for https).
    var port: Int? {
        var portText: Substring?
        let bytes = hostAndPort.utf8
        if bytes.first == UInt8(ascii: "[") {
            if let close = bytes.firstIndex(of: UInt8(ascii: "]")) {
                let after = hostAndPort[bytes.index(after: close)...]
                if after.utf8.first == UInt8(ascii: ":") { portText = after[after.utf8.index(after: after.startIndex)...] }
            }
        } else if let colon = bytes.lastIndex(of: UInt8(ascii: ":")) {
            portText = hostAndPort[bytes.index(after: colon)...]
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
        let host = self.host
        let hostText = host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host
        return "\(schemeName)://\(hostText):\(port.map(String.init) ?? "")"
    }

    /// Dotted-quad IPv4 in decimal (`127.0.0.1`); nil for anything else.
    private static func ipv4Octets(_ text: String) -> [Int]? {
        var octets: [Int] = []
        octets.reserveCapacity(4)
        var value = 0
        var digits = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: ".") {
                guard digits > 0, octets.count < 3 else { return nil }
                octets.append(value)
                value = 0
                digits = 0
            } else {
                guard byte &- UInt8(ascii: "0") < 10, digits < 3 else { return nil }
                value = value * 10 + Int(byte &- UInt8(ascii: "0"))
                digits += 1
                guard value <= 255 else { return nil }
            }
        }
        guard digits > 0, octets.count == 3 else { return nil }
        octets.append(value)
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
