extension WireFormat {
    /// The wire format's request for `page` with the pipeline's credentials, headers and
    /// limits: exactly what a run sends.
    func preparedRequest(for page: PageRequest, settings: HTTPSourceSettings) throws(ScreensPipeError) -> HTTPRequest {
        try preparedRequestAndDecision(for: page, settings: settings).request
    }

    /// ``preparedRequest(for:settings:)`` and whether it goes to the credentials' origin
    /// (an OAuth 2 token is added to it only then).
    func preparedRequestAndDecision(
        for page: PageRequest, settings: HTTPSourceSettings
    ) throws(ScreensPipeError) -> (request: HTTPRequest, decision: CredentialPolicy.Decision) {
        var request = try request(for: page)
        let decision = try CredentialPolicy.check(
            url: request.url, configured: settings.configuredURL, hasCredentials: settings.hasCredentials,
            source: settings.source)
        settings.apply(to: &request, withCredentials: decision == .sendWithCredentials)
        return (request, decision)
    }

    /// The request `plan` shows for `page`: the prepared request with secrets redacted.
    /// Pure: needs no client, sends nothing.
    func plannedRequests(for page: PageRequest, settings: HTTPSourceSettings) -> [PlannedRequest] {
        guard let (request, decision) = try? preparedRequestAndDecision(for: page, settings: settings) else { return [] }
        var headers = request.shownHeaders.map { "\($0.name): \($0.value)" }
        if case .oauth2 = settings.source.auth, decision == .sendWithCredentials, let tokenURL = settings.oauth2TokenURL {
            headers.append("Authorization: Bearer \(redactedPlaceholder) (an OAuth2 token from POST \(redactedURL(tokenURL)))")
        }
        if case .cookie(let spec) = settings.source.auth, decision == .sendWithCredentials {
            headers.append("Cookie: \(redactedPlaceholder) (a portal session from POST \(redactedURL(spec.loginURL(against: settings.configuredURL))))")
            headers.append("X-CSRF-Token: \(redactedPlaceholder) (the session's Liferay.authToken, as p_auth)")
        }
        return [
            PlannedRequest(
                page: page.index, method: request.method, url: request.shownURL, headers: headers, body: request.shownBody)
        ]
    }
}
