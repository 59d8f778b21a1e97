import ScreensBus

/// What to do with a response that matches an `on-response:` rule.
public enum ResponseAction: String, Sendable, Hashable, CaseIterable {
    /// Deliver the page with no rows and go on with the next one; the skip is reported in
    /// the page's `response` event and in `finished` (indexed lists only: a skipped page
    /// of a cursor or next-link list names no next page).
    case skipPage = "skip-page"
    /// End the list at this page (its rows, if any, are not delivered); the `finished`
    /// event says `end: response-action` and why.
    case endList = "end-list"
    /// Try the request again, within `retry.attempts`, as for a 503.
    case retry
    /// Fail the run with an error naming the page and the rule.
    case fail
}

/// One `on-response:` rule: conditions that must all hold, and the action. Rules are tried
/// in order, before the response is read as a page; the first match decides.
public struct ResponseRule: Sendable, Hashable {
    /// `json: { path: error.code, equals: X }`: the body is JSON and the value at `path`
    /// equals `value` (numbers by their text, so `404` matches `404.0` only as written).
    public struct JSONCondition: Sendable, Hashable {
        public var path: FieldPath
        public var value: JSONValue

        /// A condition on the value at `path`.
        public init(path: FieldPath, value: JSONValue) {
            self.path = path
            self.value = value
        }
    }

    /// Matching statuses; nil matches any.
    public var statuses: [Int]?
    /// Text the body must contain (UTF-8 bytes, case-sensitive), within its first
    /// ``maximumScannedBytes``.
    public var bodyContains: String?
    public var json: JSONCondition?
    public var action: ResponseAction
    /// Said in the error of `fail`, and with a skip or end.
    public var message: String?

    /// Only this much of a body is searched or parsed: a rule never costs more than a
    /// bounded look, whatever the server sends.
    public static let maximumScannedBytes = 1 << 20
    /// The longest `body-contains` text.
    public static let maximumNeedleLength = 1024

    /// Creates a rule; at least one condition should be given (the decoder insists).
    public init(statuses: [Int]? = nil, bodyContains: String? = nil, json: JSONCondition? = nil, action: ResponseAction, message: String? = nil) {
        self.statuses = statuses
        self.bodyContains = bodyContains
        self.json = json
        self.action = action
        self.message = message
    }

    /// Whether every condition holds for a response of `status` with `body`.
    func matches(status: Int, body: [UInt8]) -> Bool {
        if let statuses, !statuses.contains(status) { return false }
        if let bodyContains {
            guard Self.contains(body.prefix(Self.maximumScannedBytes), Array(bodyContains.utf8)) else { return false }
        }
        if let json {
            guard body.count <= Self.maximumScannedBytes, let parsed = try? JSONValue(parsing: body),
                let found = json.path.resolve(in: parsed), Self.equal(found, json.value)
            else { return false }
        }
        return true
    }

    /// `status 404`, `body contains "..."`, `error.code = "X"`: the rule for messages.
    var conditionText: String {
        var parts: [String] = []
        if let statuses { parts.append("status \(statuses.map(String.init).joined(separator: "|"))") }
        if let bodyContains { parts.append("body contains \"\(sanitizedServerText(bodyContains, limit: 60))\"") }
        if let json { parts.append("\(json.path) = \(sanitizedServerText(json.value.jsonString, limit: 60))") }
        return parts.joined(separator: ", ")
    }

    /// Scalars compare by kind and value; a number matches a number of the same value.
    private static func equal(_ found: JSONValue, _ expected: JSONValue) -> Bool {
        if found == expected { return true }
        if let a = found.int64Value, let b = expected.int64Value { return a == b }
        if case .string(let text) = found, case .string(let other) = expected { return text == other }
        return false
    }

    /// Knuth-Morris-Pratt: linear in the body, whatever the needle and the body hold.
    static func contains(_ haystack: ArraySlice<UInt8>, _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty else { return true }
        var failure = [Int](repeating: 0, count: needle.count)
        var k = 0
        var i = 1
        while i < needle.count {
            while k > 0, needle[i] != needle[k] { k = failure[k - 1] }
            if needle[i] == needle[k] { k += 1 }
            failure[i] = k
            i += 1
        }
        var matched = 0
        for byte in haystack {
            while matched > 0, byte != needle[matched] { matched = failure[matched - 1] }
            if byte == needle[matched] { matched += 1 }
            if matched == needle.count { return true }
        }
        return false
    }
}

/// What an `on-response:` rule did to a page, carried with the page to its events.
public struct PageResponseAction: Sendable, Hashable {
    /// `skip-page` or `end-list`.
    public var action: ResponseAction
    /// `on-response rule 1 (status 404)` and the rule's message.
    public var reason: String

    /// Creates a mark for a page that `action` applied to.
    public init(action: ResponseAction, reason: String) {
        self.action = action
        self.reason = reason
    }
}
