import ScreensBus
internal import Foundation
internal import Glibc
import Synchronization

/// Redaction of secrets in what is shown to people: messages, logs, plans, events and
/// `cache list`. This file is the one place the rules live; everything else calls it.
///
/// Over-redaction is the safe failure, so names are matched loosely.

/// The text that replaces a secret value.
package let redactedPlaceholder = "<redacted>"
/// What OpenTelemetry's HTTP conventions write for a secret in `url.full`: `REDACTED`, and
/// `REDACTED:REDACTED@` for userinfo, so that the attribute stays a valid URL.
package let telemetryRedactedPlaceholder = "REDACTED"

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
    let fragments = [
        "password", "passwd", "pwd", "secret", "token", "signature", "auth", "credential", "session", "cookie",
    ]
    if fragments.contains(where: { lower.contains($0) }) { return true }
    // "key" alone, "api_key", "apiKey", "x-api-key", "access-key", but not "keyword" or "monkey".
    // Signed URLs' credentials, which OpenTelemetry's conventions name: Azure SAS `sig`, AWS's `AWSAccessKeyId`.
    if lower == "sig" || lower == "awsaccesskeyid" { return true }
    return lower == "key" || lower.hasSuffix("_key") || lower.hasSuffix("-key") || lower.hasSuffix("apikey")
        || lower.hasSuffix("accesskey") || lower.hasSuffix("privatekey")
}

/// `url` without its userinfo (`user:password@`) and with the values of secret-looking
/// query parameters replaced by `<redacted>`. Everything else is kept byte for byte, so
/// the result still names the exact endpoint. With `markingUserinfo` the userinfo is
/// shown as `<redacted>@` (for `plan`, where the reader should see that credentials are set).
package func redactedURL(_ url: String, markingUserinfo: Bool = false) -> String {
    replacingSecrets(in: url, userinfo: { _ in markingUserinfo ? redactedPlaceholder + "@" : "" }, value: { _ in redactedPlaceholder })
}

/// `url` with its userinfo and the values of secret-named query parameters replaced by
/// what `userinfo` and `value` make of them (a placeholder, or a digest for cache keys).
package func replacingSecrets(
    in url: String, userinfo: (Substring) -> String, value: (Substring) -> String
) -> String {
    let parts = URLParts(url)
    let userinfoMark = parts.userinfo.map(userinfo) ?? ""
    var result = String(parts.scheme) + userinfoMark + String(parts.hostAndPort)
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
        return isSecretParameterName(decodedName)
            ? "\(name)=\(value(parameter[parameter.index(after: equals)...]))" : String(parameter)
    }
    return result + parameters.joined(separator: "&") + afterQuery[fragmentStart...]
}

/// A request body as text for `plan`: in a JSON body the members whose names say they hold
/// a secret (`p_auth`, `password`, ...) at any depth read `<redacted>`. A body that is not
/// JSON is not shown at all, since its secrets cannot be told apart.
package func redactedBody(_ body: [UInt8]) -> String {
    guard let value = try? JSONValue(parsing: body) else { return "<\(body.count) bytes, not JSON: not shown>" }
    func redacting(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object):
            return .object(
                JSONObject(object.map { ($0.key, isSecretParameterName($0.key) ? .string(redactedPlaceholder) : redacting($0.value)) }))
        case .array(let array):
            return .array(array.map(redacting))
        default:
            return value
        }
    }
    return redacting(value).jsonString
}

extension HTTPRequest {
    /// The headers as people see them (`plan`, `write --dry-run`): secret-named fields and
    /// every value of ``secretValues`` read `<redacted>`.
    package var shownHeaders: [(name: String, value: String)] {
        redactedHeaders(headers.pairs).map { ($0.name, redactingValues($0.value, secretValues)) }
    }

    /// The URL as people see it: no userinfo, secret-named query values and every value of
    /// ``secretValues`` redacted.
    package var shownURL: String { redactingValues(redactedURL(url), secretValues) }

    /// The URL as a span's `url.full` holds it, after OpenTelemetry's HTTP conventions: the
    /// same secrets as ``shownURL`` redacted, written `REDACTED` (userinfo as
    /// `REDACTED:REDACTED@`), so it stays a valid URL.
    package var telemetryURL: String {
        let redacted = replacingSecrets(
            in: url, userinfo: { _ in "\(telemetryRedactedPlaceholder):\(telemetryRedactedPlaceholder)@" },
            value: { _ in telemetryRedactedPlaceholder })
        return redactingValues(redacted, secretValues, placeholder: telemetryRedactedPlaceholder)
    }

    /// The body as people see it (``redactedBody(_:)``, then ``secretValues``); nil when
    /// there is none.
    package var shownBody: String? { body.map { redactingValues(redactedBody($0), secretValues) } }
}

extension ScreensPipeError {
    /// This error with every one of `secrets` in its message and exception type redacted:
    /// for errors quoting a server's answer, which may echo the credentials it was sent
    /// (a bearer token in a 401 body, a `{ secret: }` value repeated back).
    package func redacting(_ secrets: [String]) -> ScreensPipeError {
        guard !secrets.isEmpty else { return self }
        var redacted = self
        redacted.message = redactingValues(message, secrets)
        redacted.exceptionType = exceptionType.map { redactingValues($0, secrets) }
        redacted.request = request.map { redactingValues($0, secrets) }
        return redacted
    }
}

/// Server-provided `text` made safe for a terminal or a log line: control characters
/// (ESC, CR, LF, BEL, C1 controls, bidirectional overrides) shown as `\u{...}` escapes,
/// and the whole capped at `limit` characters so a hostile body cannot flood stderr.
package func sanitizedServerText(_ text: some StringProtocol, limit: Int = 500) -> String {
    escapedControlCharacters(text, limit: limit)
}

/// `text` with every character that would act on a terminal instead of showing (C0 and C1
/// controls, DEL, bidirectional overrides, line and paragraph separators) written as a
/// `\u{...}` escape; line feeds and tabs kept when `keepingLayout` (a message of several
/// lines the program wrote itself, whose server parts were escaped when they were quoted). The one rule for every human-facing line: messages, logs,
/// progress. At most `limit` characters, then `…`.
package func escapedControlCharacters(_ text: some StringProtocol, keepingLayout: Bool = false, limit: Int = .max) -> String {
    var result = ""
    var count = 0
    for scalar in text.unicodeScalars {
        if count >= limit {
            result += "…"
            break
        }
        let value = scalar.value
        let isBidiControl = (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
            || value == 0x200E || value == 0x200F || value == 0x061C
        let isControl = value < 0x20 || (0x7F...0x9F).contains(value) || isBidiControl || value == 0x2028 || value == 0x2029
        if isControl && !(keepingLayout && (value == 0x0A || value == 0x09)) {
            result += "\\u{\(String(value, radix: 16))}"
        } else {
            result.unicodeScalars.append(scalar)
        }
        count += 1
    }
    return result
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

/// `text` with each of `secrets` replaced by `<redacted>`, as written, percent-encoded and
/// JSON-escaped (the forms a value takes in a URL, a header and a body).
package func redactingValues(_ text: String, _ secrets: [String], placeholder: String = redactedPlaceholder) -> String {
    var result = text
    for secret in secrets where !secret.isEmpty {
        for form in SecretForms.of(secret) where containsBytes(result, form) {
            result = result.replacingOccurrences(of: form, with: placeholder)
        }
    }
    return result
}

/// The forms a secret takes in what is sent, worked out once per secret: every request's
/// description is redacted, and Foundation's percent-encoding of the same password on each
/// cost more than the rest of preparing the request.
private enum SecretForms {
    private static let known = Mutex<[String: [String]]>([:])

    /// `secret` as written, percent-encoded and JSON-escaped, each once, longest first (so
    /// that a form inside another never breaks it up before it is replaced whole).
    static func of(_ secret: String) -> [String] {
        if let forms = known.withLock({ $0[secret] }) { return forms }
        var forms: Set = [secret, String(JSONValue.string(secret).jsonString.dropFirst().dropLast())]
        if let encoded = secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics) { forms.insert(encoded) }
        let ordered = forms.filter { !$0.isEmpty }.sorted { ($0.utf8.count, $0) > ($1.utf8.count, $1) }
        known.withLock { known in
            // Tokens are renewed during long runs: the bound keeps old ones from piling up.
            if known.count >= 64 { known.removeAll() }
            known[secret] = ordered
        }
        return ordered
    }
}

/// Whether `form`'s UTF-8 bytes occur in `text`'s: the test before Foundation's replacement,
/// which compares UTF-16 code units literally, so it finds a form exactly where its bytes are.
private func containsBytes(_ text: String, _ form: String) -> Bool {
    var text = text
    var form = form
    return text.withUTF8 { haystack in
        form.withUTF8 { needle in
            guard let first = needle.first, needle.count <= haystack.count else { return false }
            for start in 0...(haystack.count - needle.count) where haystack[start] == first {
                if memcmp(haystack.baseAddress! + start, needle.baseAddress!, needle.count) == 0 { return true }
            }
            return false
        }
    }
}
