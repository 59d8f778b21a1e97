/// Credentials print as a redaction marker in every way Swift can show a value:
/// `"\(auth)"`, `debugPrint`, `dump` and `Mirror`, so a logger that prints a service or a
/// spec (ServiceLifecycle does at debug level) never shows the password or token.
extension AuthSpec: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `basic(username: alice, password: <redacted>)` or `bearer(token: <redacted>)`.
    public var description: String {
        switch self {
        case .basic(let username, _): "basic(username: \(username), password: \(redactedPlaceholder))"
        case .bearer: "bearer(token: \(redactedPlaceholder))"
        case .oauth2(let spec):
            "oauth2(token-url: \(redactedURL(spec.tokenURL)), grant: \(spec.grantName), client-id: \(spec.clientID), client-secret: \(redactedPlaceholder))"
        case .cookie(let spec): "cookie(username: \(spec.username), password: \(redactedPlaceholder), login-path: \(spec.loginPath))"
        }
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// The scheme and user only; the secret is a marker.
    public var customMirror: Mirror {
        switch self {
        case .basic(let username, _):
            Mirror(self, children: ["username": username, "password": redactedPlaceholder], displayStyle: .enum)
        case .bearer:
            Mirror(self, children: ["token": redactedPlaceholder], displayStyle: .enum)
        case .oauth2(let spec):
            Mirror(
                self,
                children: ["token-url": redactedURL(spec.tokenURL), "grant": spec.grantName, "client-id": spec.clientID, "client-secret": redactedPlaceholder],
                displayStyle: .enum)
        case .cookie(let spec):
            Mirror(
                self, children: ["username": spec.username, "password": redactedPlaceholder, "login-path": spec.loginPath],
                displayStyle: .enum)
        }
    }
}

/// Extra headers may hold API keys and cookies: reflection of a source shows the redacted
/// form that `plan` prints.
extension SourceSpec: CustomReflectable {
    /// The source's settings with credentials, secret headers and secret parameters redacted.
    public var customMirror: Mirror {
        Mirror(self, children: ["redacted": redactedSourceText], displayStyle: .struct)
    }

    private var redactedSourceText: String {
        let spec = PipelineSpec(name: "", source: self)
        return spec.redactedDescription()
    }
}
