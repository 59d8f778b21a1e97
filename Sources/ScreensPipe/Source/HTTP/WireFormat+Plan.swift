extension WireFormat {
    /// The wire format's request for `page` with the pipeline's credentials, headers and
    /// limits: exactly what a run sends.
    func preparedRequest(for page: PageRequest, settings: HTTPSourceSettings) throws(ScreensPipeError) -> HTTPRequest {
        var request = try request(for: page)
        let decision = try CredentialPolicy.check(
            url: request.url, configured: settings.configuredURL, hasCredentials: settings.hasCredentials,
            source: settings.source)
        settings.apply(to: &request, withCredentials: decision == .sendWithCredentials)
        return request
    }

    /// The request `plan` shows for `page`: the prepared request with secrets redacted.
    /// Pure: needs no client, sends nothing.
    func plannedRequests(for page: PageRequest, settings: HTTPSourceSettings) -> [PlannedRequest] {
        guard let request = try? preparedRequest(for: page, settings: settings) else { return [] }
        let secrets = request.secretValues
        let headers = redactedHeaders(request.headers).map { redactingValues("\($0.name): \($0.value)", secrets) }
        return [
            PlannedRequest(
                page: page.index, method: request.method, url: redactingValues(redactedURL(request.url), secrets),
                headers: headers, body: request.body.map { redactingValues(redactedBody($0), secrets) })
        ]
    }
}
