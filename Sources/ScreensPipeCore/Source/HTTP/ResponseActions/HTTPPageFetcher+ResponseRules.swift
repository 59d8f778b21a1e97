extension HTTPPageFetcher {
    /// The first matching `on-response:` rule's verdict, or nil to read the response as usual.
    func ruleVerdict(
        _ response: HTTPResponse, page: PageRequest, request: String
    ) -> RetryingSender.Verdict<Result<DecodedPage, ScreensPipeError>>? {
        let rules = settings.source.onResponse
        guard let position = rules.firstIndex(where: { $0.matches(status: response.status, body: response.body) }) else { return nil }
        let rule = rules[position]
        var reason = "on-response rule \(position + 1) (\(rule.conditionText)) matched HTTP \(response.status)"
        if let message = rule.message { reason += ": \(sanitizedServerText(message, limit: 200))" }
        switch rule.action {
        case .skipPage, .endList:
            return .final(.success(DecodedPage(rows: [], action: PageResponseAction(action: rule.action, reason: reason))))
        case .retry:
            let failure = ScreensPipeError(.http, "\(reason), and the retries ran out", page: page.index, request: request, status: response.status)
            return .retryable(.failure(failure), reason: .invalidResponse(reason), retryAfter: response.headers["Retry-After"])
        case .fail:
            let code: ScreensPipeError.Code = response.status == 401 ? .authentication : .http
            return .final(.failure(ScreensPipeError(code, reason, page: page.index, request: request, status: response.status)))
        }
    }
}
