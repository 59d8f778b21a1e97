/// `auth: { cookie: { username, password, login-path } }`: sign in to the portal by its
/// login form, as Liferay Screens' cookie authentication does (liferay-mobile-sdk
/// `CookieSignIn`), and send every request with the session's cookies and its CSRF token
/// (`Liferay.authToken`, the `p_auth` JSON-WS wants). The session lives in memory only,
/// for one run, and is signed in again once when the portal ends it.
public struct CookieSignInSpec: Sendable, Hashable {
    /// The portal login (the email address by default in Liferay).
    public var username: String
    /// Never shown.
    public var password: Secret
    /// The login form's action, a path on the source's server.
    public var loginPath: String

    /// Creates a cookie sign-in at Liferay's `/c/portal/login`.
    public init(username: String, password: Secret, loginPath: String = "/c/portal/login") {
        self.username = username
        self.password = password
        self.loginPath = loginPath
    }
}

extension SpecDecoder {
    /// `auth: { cookie: ... }`.
    func decodeCookieSignIn(_ section: Section) -> CookieSignInSpec? {
        section.checkKeys(SpecKeys.cookieAuth)
        let username = section.required("username").flatMap { context.nonEmptyString($0, key: "username") }
        let password = section.required("password").flatMap { context.nonEmptyString($0, key: "password") }
        var loginPath = "/c/portal/login"
        if let node = section["login-path"], let path = context.nonEmptyString(node, key: "login-path") {
            // A path only: the password goes to the source's own origin and nowhere else.
            if !path.hasPrefix("/") || path.hasPrefix("//") || path.contains(where: { $0.isWhitespace || $0 == "?" || $0 == "#" }) {
                context.fail("'login-path' must be a path on the server such as /c/portal/login", at: node.location)
            }
            loginPath = path
        }
        guard let username, let password else { return nil }
        return CookieSignInSpec(username: username, password: Secret(password), loginPath: loginPath)
    }
}

extension CookieSignInSpec {
    /// The setting as `plan` prints it: the user shown, the password as a marker.
    var redactedMembers: [(String, YAMLTextWriter.Value)] {
        [("username", .string(username)), ("password", .raw(redactedPlaceholder)), ("login-path", .string(loginPath))]
    }
}
