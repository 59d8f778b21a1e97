/// Where a PostgreSQL database is and how to reach it: `postgres://user@host:port/database`
/// with TLS options, as the `cache:` section and the `postgres` sink name it.
///
/// The password comes from the URL (usually through `${ENV}` interpolation) or, when the
/// URL has none, from `PGPASSWORD`. It is held as a ``Secret``: the target prints, logs and
/// reports itself without it (``description``), and no error built here contains it.
public struct PostgresTarget: Sendable, Hashable, CustomStringConvertible {
    /// How the connection uses TLS.
    public enum TLSMode: String, Sendable, Hashable, CaseIterable {
        /// Plain TCP (a loopback or otherwise trusted network only).
        case disable
        /// TLS when the server offers it, plain otherwise (libpq's default).
        case prefer
        /// TLS, with the server's certificate verified, or no connection.
        case require
    }

    /// The server's host name or address.
    public var host: String
    /// The server's port (5432 by default).
    public var port: Int
    /// The role to log in as.
    public var user: String
    /// The role's password, if the server asks for one.
    public var password: Secret?
    /// The database (by default the user's name, as libpq does).
    public var database: String
    /// How the connection uses TLS (`prefer` by default).
    public var tls: TLSMode
    /// A PEM file of the certificate authorities to trust instead of the system's.
    public var caFile: String?

    /// Creates a target from its parts.
    public init(
        host: String, port: Int = 5432, user: String, password: Secret? = nil, database: String? = nil,
        tls: TLSMode = .prefer, caFile: String? = nil
    ) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database ?? user
        self.tls = tls
        self.caFile = caFile
    }

    /// The longest URL accepted: a URL is configuration, not data.
    static let maximumURLLength = 4096

    /// Parses `postgres://user[:password]@host[:port][/database][?sslmode=...]` (or
    /// `postgresql://`). `PGPASSWORD` in `environment` stands in for a password the URL lacks.
    /// Errors never quote the URL, which may hold a password.
    public init(url text: String, tls: TLSMode? = nil, caFile: String? = nil, environment: [String: String] = [:]) throws(ScreensPipeError) {
        func invalid(_ why: String) -> ScreensPipeError {
            ScreensPipeError.configuration("invalid PostgreSQL URL: \(why) (expected postgres://user@host:port/database)")
        }
        guard text.utf8.count <= Self.maximumURLLength else { throw invalid("longer than \(Self.maximumURLLength) bytes") }
        guard !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) else {
            throw invalid("it contains control characters")
        }
        var rest = Substring(text)
        guard let scheme = rest.firstRange(of: "://") else { throw invalid("no scheme") }
        guard ["postgres", "postgresql"].contains(rest[..<scheme.lowerBound].lowercased()) else {
            throw invalid("the scheme must be postgres or postgresql")
        }
        rest = rest[scheme.upperBound...]
        var query = Substring("")
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        var path = Substring("")
        if let slash = rest.firstIndex(of: "/") {
            path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }
        // The password may hold '@': the host part starts after the last one.
        guard let at = rest.lastIndex(of: "@") else { throw invalid("no user name (user@host)") }
        let userInfo = rest[..<at]
        let hostPort = rest[rest.index(after: at)...]
        let userText: Substring
        var passwordText: Substring?
        if let colon = userInfo.firstIndex(of: ":") {
            userText = userInfo[..<colon]
            passwordText = userInfo[userInfo.index(after: colon)...]
        } else {
            userText = userInfo
        }
        guard let user = Self.percentDecoded(userText), !user.isEmpty else { throw invalid("no user name (user@host)") }
        var password: Secret?
        if let passwordText {
            guard let decoded = Self.percentDecoded(passwordText) else { throw invalid("the password is not valid percent-encoding") }
            password = Secret(decoded)
        } else if let fromEnvironment = environment["PGPASSWORD"], !fromEnvironment.isEmpty {
            password = Secret(fromEnvironment)
        }
        var host = hostPort
        var port = 5432
        if hostPort.hasPrefix("[") {
            guard let close = hostPort.firstIndex(of: "]") else { throw invalid("an unclosed [ in the host") }
            host = hostPort[hostPort.index(after: hostPort.startIndex)..<close]
            let after = hostPort[hostPort.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let number = Int(after.dropFirst()), (1...65535).contains(number) else {
                    throw invalid("the port must be a number from 1 to 65535")
                }
                port = number
            }
        } else if let colon = hostPort.lastIndex(of: ":") {
            host = hostPort[..<colon]
            guard let number = Int(hostPort[hostPort.index(after: colon)...]), (1...65535).contains(number) else {
                throw invalid("the port must be a number from 1 to 65535")
            }
            port = number
        }
        guard !host.isEmpty, host.allSatisfy({ $0.isLetter || $0.isNumber || ".-_:".contains($0) }) else {
            throw invalid("no valid host name")
        }
        guard let database = Self.percentDecoded(path), !database.contains("/") else { throw invalid("the database name is not valid") }
        var mode = tls
        for parameter in query.split(separator: "&") where !parameter.isEmpty {
            let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = pair[0]
            let value = pair.count > 1 ? String(pair[1]) : ""
            switch name {
            case "sslmode":
                // libpq's names: verify-full is what `require` does here (the certificate is checked).
                switch value {
                case "disable": mode = mode ?? .disable
                case "allow", "prefer": mode = mode ?? .prefer
                case "require", "verify-ca", "verify-full": mode = mode ?? .require
                default: throw invalid("sslmode must be disable, prefer or require")
                }
            default:
                throw invalid("unknown parameter '\(name.prefix(40))' (only sslmode is understood)")
            }
        }
        self.init(
            host: String(host), port: port, user: user, password: password, database: database.isEmpty ? nil : database,
            tls: mode ?? .prefer, caFile: caFile)
    }

    /// The target with `PGPASSWORD` from `environment` as its password when it has none.
    public func resolvingPassword(environment: [String: String]) -> PostgresTarget {
        guard password == nil, let fromEnvironment = environment["PGPASSWORD"], !fromEnvironment.isEmpty else { return self }
        var resolved = self
        resolved.password = Secret(fromEnvironment)
        return resolved
    }

    /// `postgres://user@host:port/database`: the URL without its password, safe to print.
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "postgres://\(user)@\(shownHost):\(port)/\(database)"
    }

    /// `%XX` sequences decoded; nil for a broken sequence or bytes that are not UTF-8.
    private static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next(), let low = iterator.next(),
                let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            else { return nil }
            bytes.append(value)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
