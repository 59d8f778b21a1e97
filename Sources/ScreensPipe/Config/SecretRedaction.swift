/// What `plan` and other human-facing output must not show: credentials, header values,
/// the user part of URLs, and parameters whose names say they hold a secret.
enum SecretRedaction {
    static let placeholder = "<redacted>"

    private static let secretWords = [
        "password", "passwd", "pwd", "secret", "token", "apikey", "api_key", "api-key", "access_key", "accesskey",
        "private_key", "authorization", "credential", "signature", "session", "cookie",
    ]

    /// Whether a parameter called `name` likely holds a secret (`access_token`, `apiKey`, `X-Auth-Token`...).
    static func isSecretName(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return secretWords.contains { lowered.contains($0) }
    }

    /// `url` with `user:password@` and secret-named query values replaced.
    static func redactURL(_ url: String) -> String {
        var result = url
        if let schemeEnd = result.range(of: "://") {
            let authorityEnd = result[schemeEnd.upperBound...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? result.endIndex
            if let at = result[schemeEnd.upperBound..<authorityEnd].lastIndex(of: "@") {
                result.replaceSubrange(schemeEnd.upperBound..<at, with: placeholder)
            }
        }
        guard let question = result.firstIndex(of: "?") else { return result }
        let fragmentStart = result[question...].firstIndex(of: "#") ?? result.endIndex
        let pairs = result[result.index(after: question)..<fragmentStart].split(separator: "&", omittingEmptySubsequences: false)
        let query = pairs.map { pair in
            guard let equals = pair.firstIndex(of: "="), isSecretName(String(pair[..<equals])) else { return String(pair) }
            return "\(pair[..<equals])=\(placeholder)"
        }
        return String(result[...question]) + query.joined(separator: "&") + String(result[fragmentStart...])
    }
}
