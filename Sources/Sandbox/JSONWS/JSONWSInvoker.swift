import ScreensJSON

/// `POST /api/jsonws/invoke`: one command object, or a batch array of one-key command objects.
struct JSONWSInvoker: Sendable {
    let portal: Portal
    /// The version's signatures, which decide the overload each command invokes.
    let matcher: JSONWSActionMatcher
    /// The scopes of the request's OAuth 2 token, which decide the methods it may invoke;
    /// nil for other credentials.
    var tokenScopes: Set<String>? = nil

    /// The status and body for a request body sent by `account`.
    ///
    /// A batch answers an array with one result per command; one failing command fails the
    /// whole batch with that command's error, as Liferay does.
    func invoke(body: [UInt8], account: Account) -> (status: Int, body: JSONValue) {
        do {
            let request: JSONValue
            do {
                request = try JSONValue(parsing: body)
            } catch {
                throw PortalError.invalidRequest("The request body is not JSON: \(error)")
            }
            switch request {
            case .array(let commands):
                return (200, .array(try commands.map { try run($0, account: account) }))
            case .object:
                return (200, try run(request, account: account))
            default:
                throw PortalError.invalidRequest("The request body must be a command object or an array of them")
            }
        } catch let error as PortalError {
            return (error.status, error.jsonwsBody)
        } catch {
            let failure = PortalError(status: 500, type: "java.lang.RuntimeException", message: "\(error)")
            return (failure.status, failure.jsonwsBody)
        }
    }

    private func run(_ command: JSONValue, account: Account) throws -> JSONValue {
        guard case .object(let object) = command, object.count == 1, let member = object.first else {
            throw PortalError.invalidRequest("A command must be an object with exactly one key, the service path")
        }
        let raw: JSONObject
        switch member.value {
        case .object(let params): raw = params
        case .null: raw = [:]
        default: throw PortalError.invalidRequest("The parameters of \(member.key) must be an object")
        }
        let path = member.key.trimmingSpaces()
        if let tokenScopes {
            let method = JSONWSActionMatcher.splitHint(path).path.split(separator: "/").last.map(String.init) ?? ""
            guard OAuth2Authority.allowsJSONWS(method: method, scopes: tokenScopes) else { throw PortalError.accessDenied(path) }
        }
        guard let signature = matcher.match(path: path, parameterNames: JSONWSActionMatcher.parameterNames(raw.keys)),
            let action = JSONWSServices.actions[signature.path] ?? ClassNameService.actions[signature.path]
                ?? BookmarksEntryWriteService.actions[signature.path]
                ?? JournalArticleWriteService.actions[signature.path]
                ?? DDLRecordWriteService.actions[signature.path]
                ?? ScreensCommentService.actions[signature.path]
                ?? CommentWriteService.actions[signature.path]
                ?? DLAppService.actions[signature.path]
                ?? DLAppUploads.actions[signature.path]
        else { throw PortalError.noSuchAction(path) }
        let params = ServiceParameters(raw).restricted(to: signature)
        // The portal names `serviceContext` by default (the request's own), and a command's
        // explicit null replaces it: the service then dereferences null.
        for parameter in signature.parameters where parameter.javaType.hasSuffix(".ServiceContext") && params.isExplicitNull(parameter.name) {
            throw PortalError.nullServiceContext
        }
        return try action(portal, params, account)
    }
}

extension String {
    /// The invoker trims the statement's method (`assignment.trim()`).
    fileprivate func trimmingSpaces() -> String {
        var text = Substring(self)
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }
}
