import ScreensBus

/// A token endpoint's successful answer (RFC 6749 §5.1), checked before anything of it is
/// used: the server is not trusted to send a sane body.
struct OAuth2TokenResponse: Sendable {
    /// Bigger answers are not token responses (Liferay's are a few hundred bytes).
    static let maximumBodySize = 64 << 10
    /// Access tokens go into a header line; longer ones are refused rather than sent.
    static let maximumTokenLength = 8 << 10
    /// A lifetime above a year is not a lifetime a server means.
    static let maximumLifetimeSeconds: Int64 = 366 * 24 * 3600

    var accessToken: Secret
    var lifetime: Duration
    /// A rotated refresh token, when the server sent one.
    var refreshToken: Secret?

    /// Reads a 200 answer's body; every way it can be wrong is an authentication error
    /// that says which field and never shows a token.
    static func parse(_ body: [UInt8]) throws(ScreensPipeError) -> OAuth2TokenResponse {
        guard body.count <= maximumBodySize else {
            throw failure("is \(body.count) bytes, more than the \(maximumBodySize) a token response may have")
        }
        let json: JSONValue
        do throws(JSONParseError) {
            json = try JSONValue(parsing: body)
        } catch {
            throw failure("is not valid JSON (\(error))")
        }
        guard case .object = json else { throw failure("is not a JSON object") }
        guard let token = json["access_token"]?.stringValue, !token.isEmpty else {
            throw failure("has no access_token string")
        }
        guard token.count <= maximumTokenLength else {
            throw failure("has an access_token longer than \(maximumTokenLength) characters")
        }
        // RFC 6750 §2.1 b64token characters: anything else could break the header line.
        guard token.unicodeScalars.allSatisfy(isTokenCharacter) else {
            throw failure("has an access_token with characters a bearer token may not hold")
        }
        guard let type = json["token_type"]?.stringValue else { throw failure("has no token_type") }
        guard type.lowercased() == "bearer" else {
            throw failure("has token_type '\(sanitizedServerText(type, limit: 40))', not Bearer")
        }
        guard let expiresIn = json["expires_in"] else {
            throw failure("has no expires_in: without a lifetime the token cannot be renewed in time")
        }
        guard let seconds = expiresIn.int64Value ?? expiresIn.stringValue.flatMap({ Int64($0) }) else {
            throw failure("has an expires_in that is not a whole number of seconds")
        }
        guard seconds > 0, seconds <= maximumLifetimeSeconds else {
            throw failure("has expires_in \(seconds), outside 1...\(maximumLifetimeSeconds) seconds")
        }
        var refreshToken: Secret?
        if let refresh = json["refresh_token"] {
            guard let text = refresh.stringValue, !text.isEmpty, text.count <= maximumTokenLength else {
                throw failure("has a refresh_token that is not a string of 1...\(maximumTokenLength) characters")
            }
            refreshToken = Secret(text)
        }
        return OAuth2TokenResponse(accessToken: Secret(token), lifetime: .seconds(seconds), refreshToken: refreshToken)
    }

    /// An error answer (RFC 6749 §5.2: `{"error": "invalid_client", "error_description": ...}`),
    /// as a message with the server's text sanitized; `secrets` are taken out of it too.
    /// `invalidGrantMeans` says what `invalid_grant` means for the grant asked: a wrong
    /// password, or a refresh token that no longer holds.
    static func refusal(
        status: Int, body: [UInt8], secrets: [String], invalidGrantMeans: String = "the refresh token is invalid, expired or revoked"
    ) -> String {
        var text = "the token endpoint answered HTTP \(status)"
        guard body.count <= maximumBodySize, let json = try? JSONValue(parsing: body), case .object = json else {
            return text
        }
        if let code = json["error"]?.stringValue {
            text += ": \(sanitizedServerText(code, limit: 60))"
            switch code {
            case "invalid_client": text += " (the client id or secret is wrong)"
            case "invalid_grant": text += " (\(invalidGrantMeans))"
            case "invalid_scope": text += " (the scope is not allowed for this client)"
            case "unauthorized_client": text += " (the client may not use this grant)"
            default: break
            }
        }
        if let description = json["error_description"]?.stringValue {
            text += ": \(sanitizedServerText(description, limit: 200))"
        }
        return redactingValues(text, secrets)
    }

    /// The `error` code of an error answer, when it is one.
    static func errorCode(_ body: [UInt8]) -> String? {
        guard body.count <= maximumBodySize, let json = try? JSONValue(parsing: body) else { return nil }
        return json["error"]?.stringValue
    }

    private static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "-", ".", "_", "~", "+", "/", "=": true
        default: false
        }
    }

    private static func failure(_ problem: String) -> ScreensPipeError {
        .authentication("the token endpoint's answer \(problem)")
    }
}
