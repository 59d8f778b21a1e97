import ScreensJSON

/// Maps requests to the portal's endpoints and applies authentication.
struct Router: Sendable {
    /// The portal's data as changed over time (``SandboxChanges``); each request reads it once.
    let changes: SandboxChanges
    let loginRedirect: Bool
    let version: LiferayVersion
    let jsonwsMatcher: JSONWSActionMatcher
    /// The OAuth 2 provider; nil serves no token endpoint.
    let oauth2: OAuth2Authority?
    /// The form sign-in's sessions.
    let sessions: PortalSessions
    /// The data endpoints' request budget; nil admits everything.
    let rateLimit: RateLimitGate?
    /// Whether headless answers are pretty-printed, as a portal answers `curl`.
    let prettyHeadless: Bool
    /// The layout of every JSON answer, when the sandbox was told one (see ``SandboxConfiguration/jsonLayout``).
    var jsonLayout: SandboxJSONLayout?
    /// Whether the portal is up (``SandboxAvailability``).
    let availability = SandboxAvailability()

    init(
        portal: Portal, loginRedirect: Bool, version: LiferayVersion, oauth2: OAuth2Authority? = nil,
        sessions: PortalSessions = PortalSessions(sessionUses: nil),
        rateLimit: RateLimitGate? = nil, prettyHeadless: Bool = true
    ) {
        changes = SandboxChanges(portal: portal)
        self.loginRedirect = loginRedirect
        self.version = version
        self.oauth2 = oauth2
        self.sessions = sessions
        self.rateLimit = rateLimit
        self.prettyHeadless = prettyHeadless
        jsonwsMatcher = JSONWSActionMatcher(version: version)
    }

    /// Headless APIs live under `/o/headless-...`.
    static let headlessPrefix = "/o/headless-"

    static let invokePath = "/api/jsonws/invoke"
    static let loginPath = "/c/portal/login"

    /// Whether `path` serves data, and so is subject to fault injection.
    static func isDataEndpoint(_ path: String) -> Bool {
        path == invokePath || path.hasPrefix(StructuredContents.pathPrefix) || path == MyUserAccountSites.path
            || path.hasPrefix(RESTEndpoints.pathPrefix) || path.hasPrefix(StructuredContentComments.pathPrefix)
            || path.hasPrefix(FolderDocuments.pathPrefix) || path == DLAppUploads.path || HeadlessCommentWrites.target(ofPath: path) != nil
            || HeadlessDocumentWrites.target(ofPath: Substring(path)) != nil
    }

    func respond(to request: SandboxRequest) -> SandboxResponse {
        guard let rateLimit, Self.isDataEndpoint(request.path) else { return formatted(route(request), for: request) }
        return formatted(rateLimit.admit { route(request) }, for: request)
    }

    /// A headless JSON answer pretty-printed (unless the sandbox answers compact); any other
    /// answer as it is.
    private func formatted(_ response: SandboxResponse, for request: SandboxRequest) -> SandboxResponse {
        let layout: SandboxJSONLayout
        if let jsonLayout, jsonLayout != .compact || request.path.hasPrefix(Self.headlessPrefix) {
            layout = jsonLayout
        } else if jsonLayout == nil, prettyHeadless, request.path.hasPrefix(Self.headlessPrefix) {
            layout = .pretty
        } else {
            return response
        }
        guard response.headers.contains(where: { $0.0 == "Content-Type" && $0.1.hasPrefix("application/json") }),
            let body = layout.relaid(response.body)
        else { return response }
        var laidOut = response
        laidOut.body = body
        return laidOut
    }

    private func route(_ request: SandboxRequest) -> SandboxResponse {
        if let name = request.headers[PagingMisbehaviour.headerName], !name.isEmpty {
            guard let misbehaviour = PagingMisbehaviour(rawValue: name) else {
                return .text(400, "Unknown \(PagingMisbehaviour.headerName): \(name)\n")
            }
            var honest = request
            honest.headers[PagingMisbehaviour.headerName] = nil
            return misbehaviour.respond(to: honest) { route($0) }
        }
        if let template = request.headers[LinkTemplate.headerName], !template.isEmpty {
            var honest = request
            honest.headers[LinkTemplate.headerName] = nil
            return LinkTemplate.respond(to: honest, template: template, honest: route(honest))
        }
        if request.path == SandboxChanges.path { return changes.respond(to: request) }
        if request.path == SandboxAvailability.path { return availability.respond(to: request) }
        if request.path == SandboxEntryEdit.path { return SandboxEntryEdit.respond(to: request, portal: changes.portal) }
        if availability.isDown, Self.isDataEndpoint(request.path) { return SandboxAvailability.downResponse }
        let portal = changes.portal
        let baseURL = request.baseURL
        var authentication = portal.data.accounts.authenticate(authorization: request.headers["authorization"])
        // A session cookie signs a request in when no Authorization header does; JSON-WS
        // also wants the session's CSRF token (AuthTokenUtil.checkCSRFToken).
        var missingCSRFToken = false
        // Elsewhere a session without its token is a guest's, as PortalSessionAuthVerifier
        // leaves a request whose CSRF check fails.
        if case .missing = authentication, Self.isDataEndpoint(request.path), case .user(let email, let validToken) = sessions.check(request),
            validToken || request.path == Self.invokePath
        {
            authentication = portal.data.accounts.users.first { $0.emailAddress == email }.map(Authentication.user) ?? .invalid
            missingCSRFToken = !validToken
        }
        if let oauth2, request.path == OAuth2Authority.tokenPath {
            return oauth2.respond(to: request, accounts: portal.data.accounts)
        }
        // The scopes of the request's OAuth 2 token; nil for any other credentials.
        var tokenScopes: Set<String>?
        if let oauth2, Self.isDataEndpoint(request.path) {
            let headless = request.path.hasPrefix(Self.headlessPrefix)
            switch oauth2.check(authorization: request.headers["authorization"], at: request.receivedAt) {
            case .unknown: break
            case .valid(let email, let scopes):
                authentication = portal.data.accounts.users.first { $0.emailAddress == email }.map(Authentication.user) ?? .invalid
                tokenScopes = scopes
                if headless, !OAuth2Authority.allowsHeadless(method: request.method, scopes: scopes) {
                    return .json(403, ["status": "FORBIDDEN", "title": .string("The access token's scopes do not allow \(request.method) here")])
                }
            case .expired:
                return OAuth2Authority.expiredTokenResponse(
                    body: headless
                        ? ["status": "UNAUTHORIZED", "title": "Authenticated access required"]
                        : PortalError.authenticationRequired.jsonwsBody)
            }
        }
        switch request.path {
        case Self.invokePath:
            guard request.method == "POST" else { return methodNotAllowed("POST") }
            guard case .user(let account) = authentication else {
                // A session cookie the portal does not know (ended, timed out) makes a guest.
                if case .missing = authentication, PortalSessions.carriesSessionCookie(request) {
                    return .json(PortalSessions.endedSession.status, PortalSessions.endedSession.jsonwsBody)
                }
                return unauthenticated(request, baseURL: baseURL, body: PortalError.authenticationRequired.jsonwsBody)
            }
            if missingCSRFToken { return PortalSessions.invalidCSRFToken(userId: account.userId, path: request.path) }
            let (status, body) = JSONWSInvoker(portal: portal, matcher: jsonwsMatcher, tokenScopes: tokenScopes).invoke(body: request.body, account: account)
            return .json(status, body)

        case DLAppUploads.path:
            guard request.method == "POST" else { return methodNotAllowed("POST") }
            guard case .user(let account) = authentication else {
                return unauthenticated(request, baseURL: baseURL, body: PortalError.authenticationRequired.jsonwsBody)
            }
            if missingCSRFToken { return PortalSessions.invalidCSRFToken(userId: account.userId, path: request.path) }
            let (status, body) = DLAppUploads.respond(request, portal: portal, account: account)
            return .json(status, body)

        case _ where version.servesHeadlessDelivery && StructuredContentWrites.target(of: request) != nil:
            guard case .user(let account) = authentication else {
                return unauthenticated(request, baseURL: baseURL, body: ["status": "UNAUTHORIZED", "title": "Authenticated access required"])
            }
            return StructuredContentWrites(portal: portal).respond(to: request, target: StructuredContentWrites.target(of: request)!, account: account)

        case _ where StructuredContents.siteId(ofPath: request.path) != nil && version.servesHeadlessDelivery:
            return headless(request, authentication, baseURL: baseURL) { account in
                let (body, locale) = try StructuredContents(portal: portal).page(
                    siteId: StructuredContents.siteId(ofPath: request.path)!, query: request.query,
                    acceptLanguage: request.headers["accept-language"], account: account)
                return .json(200, body, headers: [("Content-Language", locale.replacingUnderscores())])
            }

        case _ where version.servesHeadlessDelivery && HeadlessCommentWrites.target(of: request) != nil:
            guard case .user(let account) = authentication else {
                return unauthenticated(request, baseURL: baseURL, body: ["status": "UNAUTHORIZED", "title": "Authenticated access required"])
            }
            return HeadlessCommentWrites(portal: portal).respond(to: request, target: HeadlessCommentWrites.target(of: request)!, account: account)

        case _ where StructuredContentComments.structuredContentId(ofPath: request.path) != nil && version.servesHeadlessDelivery:
            return headless(request, authentication, baseURL: baseURL) { account in
                .json(200, try StructuredContentComments(portal: portal).page(
                    structuredContentId: StructuredContentComments.structuredContentId(ofPath: request.path)!,
                    query: request.query, account: account))
            }

        case _ where version.servesHeadlessDelivery && HeadlessDocumentWrites.target(of: request) != nil:
            guard case .user(let account) = authentication else {
                return unauthenticated(request, baseURL: baseURL, body: ["status": "UNAUTHORIZED", "title": "Authenticated access required"])
            }
            return HeadlessDocumentWrites.respond(to: request, target: HeadlessDocumentWrites.target(of: request)!, portal: portal, account: account)

        case _ where FolderDocuments.folderId(ofPath: request.path) != nil && version.servesHeadlessDelivery:
            return headless(request, authentication, baseURL: baseURL) { account in
                .json(200, try FolderDocuments(portal: portal).page(
                    folderId: FolderDocuments.folderId(ofPath: request.path)!, query: request.query, account: account))
            }

        case MyUserAccountSites.path where version.servesHeadlessDelivery:
            return headless(request, authentication, baseURL: baseURL) { account in
                .json(200, try MyUserAccountSites(portal: portal).page(query: request.query, account: account))
            }

        case _ where request.path.hasPrefix(SearchEndpoint.pathPrefix):
            if case .invalid = authentication {
                return unauthenticated(request, baseURL: baseURL, body: ["error": "Authenticated access required"])
            }
            return SearchEndpoint(portal: portal).respond(to: request)

        case _ where request.path.hasPrefix(RESTEndpoints.pathPrefix):
            guard request.method == "GET" else { return methodNotAllowed("GET") }
            if case .invalid = authentication {
                return unauthenticated(request, baseURL: baseURL, body: ["error": "Authenticated access required"])
            }
            return RESTEndpoints(portal: portal, trash: changes.trashedBookmarks).respond(to: request, baseURL: baseURL)

        case Self.loginPath:
            if request.method == "POST" { return sessions.signIn(request, accounts: portal.data.accounts) }
            return .text(200, PortalSessions.signInPage(), contentType: "text/html; charset=UTF-8")

        case PortalSessions.landingPath:
            return sessions.landingPage(request)

        case "/":
            return .text(200, "Liferay sandbox portal (screens-pipe). Endpoints: POST \(Self.invokePath), GET \(StructuredContents.pathPrefix){siteId}\(StructuredContents.pathSuffix), GET \(RESTEndpoints.pathPrefix){bookmarks|generated}/{offset|pages|cursor|next-link|link-header}\n")

        default:
            return .text(404, "Not Found: \(request.path)\n")
        }
    }

    /// A headless GET: signed-in users only, errors as `{"status","title"}`.
    private func headless(
        _ request: SandboxRequest, _ authentication: Authentication, baseURL: String,
        _ answer: (Account) throws -> SandboxResponse
    ) -> SandboxResponse {
        guard request.method == "GET" else { return methodNotAllowed("GET") }
        guard case .user(let account) = authentication else {
            return unauthenticated(
                request, baseURL: baseURL, body: ["status": "UNAUTHORIZED", "title": "Authenticated access required"])
        }
        do {
            return try answer(account)
        } catch let error as HeadlessError {
            return .json(error.status, error.body)
        } catch {
            return .json(500, ["status": "INTERNAL_SERVER_ERROR", "title": .string("\(error)")])
        }
    }

    /// A 401 with the endpoint's error body, or with `loginRedirect` a 302 to the sign-in page.
    private func unauthenticated(_ request: SandboxRequest, baseURL: String, body: JSONValue) -> SandboxResponse {
        if loginRedirect {
            return SandboxResponse(
                status: 302,
                headers: [("Location", "\(baseURL)\(Self.loginPath)?redirect=\(request.path)"), ("Content-Type", "text/html; charset=UTF-8")],
                body: [])
        }
        return .json(401, body, headers: [("WWW-Authenticate", "Basic realm=\"PortalRealm\"")])
    }

    private func methodNotAllowed(_ allowed: String) -> SandboxResponse {
        var response = SandboxResponse.text(405, "Method Not Allowed\n")
        response.headers.append(("Allow", allowed))
        return response
    }
}

extension String {
    fileprivate func replacingUnderscores() -> String {
        String(map { $0 == "_" ? "-" : $0 })
    }
}
