// A plain import: SwiftPM's generated resource accessor imports Foundation publicly.
import Foundation
import ScreensJSON

/// A portal user and what they may see.
struct Account: Sendable {
    var userId: Int64
    var emailAddress: String
    /// `firstName lastName`, as `User.getFullName()` writes a comment's `userName`.
    var fullName: String
    var password: String
    var tokens: [String]
    /// Sites the user is a member of; other sites answer 403.
    var groupIds: Set<Int64>
    /// Bookmarks the user has no VIEW permission on: filtered in the query, so they are
    /// missing from both the rows and the count, as a real portal's filtered finders do.
    var hiddenEntryIds: Set<Int64>

    init(json: JSONValue, reader: DataFileReader) throws {
        userId = try reader.int64(json, "userId", in: "users.json")
        guard let email = json["emailAddress"]?.stringValue, let password = json["password"]?.stringValue else {
            throw SandboxError("\(reader.directory)/users.json: a user needs emailAddress and password")
        }
        emailAddress = email
        fullName = [json["firstName"]?.stringValue, json["lastName"]?.stringValue].compactMap { $0 }.joined(separator: " ")
        self.password = password
        tokens = (json["tokens"]?.arrayValue ?? []).compactMap(\.stringValue)
        groupIds = Set((json["groupIds"]?.arrayValue ?? []).compactMap(\.int64Value))
        hiddenEntryIds = Set((json["hiddenEntryIds"]?.arrayValue ?? []).compactMap(\.int64Value))
    }

    func canView(groupId: Int64) -> Bool { groupIds.contains(groupId) }
}

/// The outcome of checking a request's `Authorization` header.
enum Authentication: Sendable {
    case user(Account)
    /// No credentials at all.
    case missing
    /// Credentials that match no account; never echoed anywhere.
    case invalid
}

/// The portal's accounts and the credential check.
struct Accounts: Sendable {
    var users: [Account]

    /// Checks `Basic base64(email:password)` or `Bearer token`.
    func authenticate(authorization: String?) -> Authentication {
        guard let authorization = authorization?.trimmingCharacters(in: .whitespaces), !authorization.isEmpty else {
            return .missing
        }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2 else { return .invalid }
        let scheme = parts[0].lowercased()
        let credentials = parts[1].trimmingCharacters(in: .whitespaces)
        if scheme == "bearer" {
            return users.first { $0.tokens.contains(credentials) }.map(Authentication.user) ?? .invalid
        }
        guard scheme == "basic", let decoded = Data(base64Encoded: credentials),
            let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return .invalid }
        let login = text[..<colon].lowercased()
        let password = String(text[text.index(after: colon)...])
        return users.first { $0.emailAddress.lowercased() == login && $0.password == password }
            .map(Authentication.user) ?? .invalid
    }
}
