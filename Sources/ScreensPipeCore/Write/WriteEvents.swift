import ScreensBus

/// What every writer tells the bus and the rejects file, the same way whatever the service.
struct WriteEvents {
    let bus: EventBus
    let pipeline: String
    let rejects: RejectsFile

    /// A refused row: a line of the rejects file, an `error` event and a `rejected` result.
    func reject(line: Int, input: String?, truncated: Bool, reason: String) async throws(ScreensPipeError) {
        try rejects.append(line: line, input: input, truncated: truncated, reason: reason)
        await bus.publish(.error(ListError(pipeline: pipeline, row: line, kind: "rejected", message: "line \(line): \(reason)")))
        await bus.publish(custom: "result", pipeline: pipeline, payload: ["line": .int(Int64(line)), "outcome": "rejected", "reason": .string(reason)])
    }

    /// One row's `result` event: `line`, `outcome`, then `details` (ids, key fields, reason);
    /// a detail whose name says it holds a secret (`p_auth`, `password1`, `apiToken`: a
    /// custom command's key may be any parameter) reads `<redacted>`, as in `plan`.
    func result(line: Int, outcome: String, details: JSONObject) async {
        var payload: JSONObject = ["line": .int(Int64(line)), "outcome": .string(outcome)]
        for (name, value) in details { payload[name] = isSecretParameterName(name) ? .string(redactedPlaceholder) : value }
        await bus.publish(custom: "result", pipeline: pipeline, payload: .object(payload))
    }

    /// `--dry-run`: the request as it would be sent, credentials redacted as `plan` redacts
    /// them (``HTTPRequest/shownHeaders`` and ``HTTPRequest/shownBody``: secret-named
    /// parameters such as `p_auth`, `password1`, `apiToken` read `<redacted>`).
    func plan(_ request: HTTPRequest) async {
        var headerObject = JSONObject()
        for field in request.shownHeaders { headerObject[field.name] = .string(field.value) }
        let body: JSONValue = request.shownBody.map { text in (try? JSONValue(parsing: Array(text.utf8))) ?? .string(text) } ?? .null
        await bus.publish(
            custom: "request", pipeline: pipeline,
            payload: ["request": .string(request.requestDescription), "headers": .object(headerObject), "body": body])
    }
}

extension HTTPSourceSettings {
    /// Applies the sink's headers, limits and, where the credential policy allows it for
    /// the request's URL, its credentials.
    func authorize(_ request: inout HTTPRequest) throws(ScreensPipeError) {
        let decision = try CredentialPolicy.check(
            url: request.url, configured: configuredURL, hasCredentials: hasCredentials, source: source)
        apply(to: &request, withCredentials: decision == .sendWithCredentials)
    }
}

/// Takes rows and writes them: one per service and transport.
protocol RowWriter: AnyObject {
    /// Takes one input line.
    func take(_ line: WriteInputLine) async throws(ScreensPipeError)
    /// Takes one row of a source's list (copying), numbered from 1.
    func take(row value: JSONValue, number: Int) async throws(ScreensPipeError)
    /// Sends what is left and closes the rejects file.
    func finish() async throws(ScreensPipeError) -> WriteSummary
    /// The outcomes so far.
    var summary: WriteSummary { get }
}

/// A writer that checks each row into a `Row` of its own and writes it one at a time: how it
/// takes a line or a list's row is this one rule, a row that fails the check a reject.
protocol CheckingRowWriter: RowWriter {
    associatedtype Row
    /// Checks one row (the `validateData` of a Screenlet).
    func check(_ value: JSONValue, line: Int) throws(RowRejection) -> Row
    /// Writes a row that passed the check.
    func write(_ row: Row) async throws(ScreensPipeError)
    /// Records a row the writer will not write, with the reason.
    func reject(line: Int, input: String?, truncated: Bool, reason: String) async throws(ScreensPipeError)
}

extension CheckingRowWriter {
    func take(_ line: WriteInputLine) async throws(ScreensPipeError) {
        switch Result(catching: { () throws(RowRejection) in try check(WriteRowParsing.object(line), line: line.number) }) {
        case .success(let row): try await write(row)
        case .failure(let rejection):
            try await reject(line: line.number, input: String(decoding: line.bytes, as: UTF8.self), truncated: line.truncated, reason: rejection.message)
        }
    }

    func take(row value: JSONValue, number: Int) async throws(ScreensPipeError) {
        switch Result(catching: { () throws(RowRejection) in try check(value, line: number) }) {
        case .success(let row): try await write(row)
        case .failure(let rejection): try await reject(line: number, input: value.jsonString, truncated: false, reason: rejection.message)
        }
    }
}
