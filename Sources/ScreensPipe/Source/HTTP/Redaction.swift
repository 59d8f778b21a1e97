/// Redaction of secrets in what is shown to people: messages, logs, plans and events.
///
/// Over-redaction is the safe failure, so names are matched loosely.

/// The text that replaces a secret value.
package let redactedPlaceholder = "<redacted>"

/// `headers` with the values of secret-bearing fields (Authorization, Cookie, API keys,
/// tokens, passwords) replaced by `<redacted>`. Names and order are kept.
package func redactedHeaders(_ headers: [(name: String, value: String)]) -> [(name: String, value: String)] {
    headers.map { isSecretHeaderName($0.name) ? ($0.name, redactedPlaceholder) : $0 }
}

/// `headers` with secret values redacted.
package func redactedHeaders(_ headers: HTTPHeaders) -> HTTPHeaders {
    HTTPHeaders(redactedHeaders(headers.pairs))
}

/// Whether a header named `name` carries a credential.
package func isSecretHeaderName(_ name: String) -> Bool {
    let lower = name.lowercased()
    let exact: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie"]
    return exact.contains(lower) || isSecretParameterName(lower)
}

/// Whether a query parameter (or header) named `name` looks like it carries a secret:
/// password, token, secret, key, signature, auth (Liferay's `p_auth`), ...
package func isSecretParameterName(_ name: String) -> Bool {
    let lower = name.lowercased()
    let fragments = ["password", "passwd", "pwd", "secret", "token", "signature", "auth", "credential", "session"]
    if fragments.contains(where: { lower.contains($0) }) { return true }
    // "key" alone, "api_key", "apiKey", "x-api-key", "access-key", but not "keyword" or "monkey".
    return lower == "key" || lower.hasSuffix("_key") || lower.hasSuffix("-key") || lower.hasSuffix("apikey")
        || lower.hasSuffix("accesskey") || lower.hasSuffix("privatekey")
}

/// `url` without its userinfo (`user:password@`) and with the values of secret-looking
/// query parameters replaced by `<redacted>`. Everything else is kept byte for byte, so
/// the result still names the exact endpoint.
package func redactedURL(_ url: String) -> String {
    let parts = URLParts(url)
    var result = String(parts.scheme + parts.hostAndPort)
    let text = parts.rest
    guard let queryStart = text.firstIndex(of: "?") else { return result + text }
    result += text[...queryStart]
    let afterQuery = text[text.index(after: queryStart)...]
    let fragmentStart = afterQuery.firstIndex(of: "#") ?? afterQuery.endIndex
    let query = afterQuery[..<fragmentStart]
    let parameters = query.split(separator: "&", omittingEmptySubsequences: false).map { parameter -> String in
        guard let equals = parameter.firstIndex(of: "=") else { return String(parameter) }
        let name = parameter[..<equals]
        let decodedName = name.removingPercentEncodingLoosely()
        return isSecretParameterName(decodedName) ? "\(name)=\(redactedPlaceholder)" : String(parameter)
    }
    return result + parameters.joined(separator: "&") + afterQuery[fragmentStart...]
}

/// `text` with every occurrence of the URL's userinfo (and its password alone) removed, for
/// messages produced by libcurl that might quote the URL.
func scrubbingUserinfo(of url: String, from text: String) -> String {
    guard let userinfo = URLParts(url).userinfo.map(String.init) else { return text }
    var scrubbed = text.replacing(userinfo + "@", with: "")
    if let colon = userinfo.firstIndex(of: ":") {
        let password = String(userinfo[userinfo.index(after: colon)...])
        if !password.isEmpty { scrubbed = scrubbed.replacing(password, with: redactedPlaceholder) }
    }
    return scrubbed
}

extension Substring {
    /// Percent-decodes escapes so `api%5Fkey` is recognised; invalid escapes stay as written.
    fileprivate func removingPercentEncodingLoosely() -> String {
        let source = Array(utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(source.count)
        var index = 0
        while index < source.count {
            let byte = source[index]
            if byte == UInt8(ascii: "%"), index + 2 < source.count,
                let value = UInt8(String(decoding: source[index + 1...index + 2], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                index += 3
            } else {
                bytes.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
