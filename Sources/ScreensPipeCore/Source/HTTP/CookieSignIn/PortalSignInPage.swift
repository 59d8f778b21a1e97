/// The cookies a portal sets while signing in, as a `Cookie` header: `COOKIE_SUPPORT=true`
/// first (Liferay's check that the client keeps cookies), then each cookie by name, a
/// later value replacing an earlier one.
struct PortalCookieJar: Sendable {
    /// More is not a portal's sign-in.
    static let maximumCookies = 32
    static let maximumValueLength = 4096

    private var cookies: [(name: String, value: String)] = [("COOKIE_SUPPORT", "true")]

    /// `Set-Cookie` values of `headers` that are cookies a header line can carry back
    /// (RFC 6265 §4.1.1 names and values); anything else is left out, never sent.
    mutating func take(_ headers: HTTPHeaders) {
        for line in headers.values(for: "Set-Cookie") {
            let pair = line.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
            guard let equals = pair.firstIndex(of: "=") else { continue }
            let name = pair[..<equals].trimmingSpaces
            var value = pair[pair.index(after: equals)...].trimmingSpaces
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            guard !name.isEmpty, name.unicodeScalars.allSatisfy(Self.isTokenCharacter),
                value.count <= Self.maximumValueLength, value.unicodeScalars.allSatisfy(Self.isCookieOctet)
            else { continue }
            cookies.removeAll { $0.name == name }
            guard cookies.count < Self.maximumCookies else { continue }
            cookies.append((name, value))
        }
    }

    /// Whether the portal set a cookie of its own (the session).
    var holdsSession: Bool { cookies.contains { $0.name != "COOKIE_SUPPORT" && !$0.value.isEmpty } }

    /// The `Cookie` header.
    var header: String { cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ") }

    /// The values the portal set, which every shown form of a request redacts: all but
    /// Liferay's cookies that say nothing about the user (the cookie check, the guest's
    /// language, the session's last-access time), whose values ("en_US", a timestamp)
    /// would otherwise blank out the same text wherever a message shows it.
    var values: [String] {
        cookies.filter { !Self.isPublic($0.name) && $0.value.count >= 4 }.map(\.value)
    }

    private static func isPublic(_ name: String) -> Bool {
        name == "COOKIE_SUPPORT" || name == "GUEST_LANGUAGE_ID" || name.hasPrefix("LFR_SESSION_STATE_")
    }

    private static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && scalar.value > 32 && scalar.value < 127 && !"()<>@,;:\\\"/[]?={}".unicodeScalars.contains(scalar)
    }

    private static func isCookieOctet(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value == 0x21 || (0x23...0x2B).contains(scalar.value) || (0x2D...0x3A).contains(scalar.value)
            || (0x3C...0x5B).contains(scalar.value) || (0x5D...0x7E).contains(scalar.value)
    }
}

/// The page a portal lands on after signing in.
enum PortalSignInPage {
    /// The sign-in's answers are HTML pages; a bigger one is not read.
    static let maximumBodySize = 4 << 20
    /// Liferay's tokens are 8 characters; longer is not a token a header should carry.
    static let maximumTokenLength = 64

    /// The CSRF token of `Liferay.authToken = '...'` (or `"..."`) in the page's script, when
    /// it is letters and digits as Liferay's are.
    static func authToken(in body: [UInt8]) -> String? {
        let text = String(decoding: body.prefix(maximumBodySize), as: UTF8.self)
        var rest = Substring(text)
        while let found = rest.firstRange(of: "Liferay.authToken") {
            rest = rest[found.upperBound...]
            var cursor = rest.drop { $0 == " " || $0 == "\t" }
            guard cursor.first == "=" else { continue }
            cursor = cursor.dropFirst().drop { $0 == " " || $0 == "\t" }
            guard let quote = cursor.first, quote == "'" || quote == "\"" else { continue }
            let value = cursor.dropFirst().prefix { $0 != quote }
            guard !value.isEmpty, value.count <= maximumTokenLength,
                value.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) })
            else { continue }
            return String(value)
        }
        return nil
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
