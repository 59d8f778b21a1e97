import ScreensPipeCore
internal import PostgresNIO
internal import Logging

/// Opens connections to a ``PostgresTarget`` and turns postgres-nio's errors into
/// ``ScreensPipeError``s that say what failed and where, without the password.
enum PostgresConnector {
    /// How long establishing one connection may take, in seconds (TCP, TLS and login).
    static let connectTimeoutSeconds: Int64 = 10

    static func clientConfiguration(_ target: PostgresTarget) throws(ScreensPipeError) -> PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS =
            switch try tlsSettings(target) {
            case nil: .disable
            case let settings? where target.tls == .require: .require(settings)
            case let settings?: .prefer(settings)
            }
        var configuration = PostgresClient.Configuration(
            host: target.host, port: target.port, username: target.user, password: target.password?.revealed,
            database: target.database, tls: tls)
        configuration.options.connectTimeout = .seconds(connectTimeoutSeconds)
        configuration.options.maximumConnections = 8
        return configuration
    }

    static func connectionConfiguration(_ target: PostgresTarget) throws(ScreensPipeError) -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS
        if let settings = try tlsSettings(target) {
            let context = try sslContext(settings, target: target)
            tls = target.tls == .require ? .require(context) : .prefer(context)
        } else {
            tls = .disable
        }
        var configuration = PostgresConnection.Configuration(
            host: target.host, port: target.port, username: target.user, password: target.password?.revealed,
            database: target.database, tls: tls)
        configuration.options.connectTimeout = .seconds(connectTimeoutSeconds)
        return configuration
    }

    /// One connection of its own (for a session-level advisory lock, which lives and dies with it).
    static func connect(_ target: PostgresTarget, purpose: String) async throws(ScreensPipeError) -> PostgresConnection {
        let configuration = try connectionConfiguration(target)
        do {
            return try await PostgresConnection.connect(
                configuration: configuration, id: 1, logger: Logger(label: "screens-pipe.postgres"))
        } catch {
            throw failure(error, action: purpose, target: target)
        }
    }

    /// The TLS settings of `target`, nil for `tls: disable`; a CA file that cannot be read
    /// is an error here, before any connection.
    private static func tlsSettings(_ target: PostgresTarget) throws(ScreensPipeError) -> TLSConfiguration? {
        guard target.tls != .disable else { return nil }
        var settings = TLSConfiguration.makeClientConfiguration()
        if let caFile = target.caFile {
            settings.trustRoots = .file(caFile)
        }
        // `prefer` takes what the server offers, as libpq does: it protects against eavesdropping,
        // not against a server that is not the one named. `require` verifies the certificate.
        if target.tls == .prefer { settings.certificateVerification = .none }
        _ = try sslContext(settings, target: target)
        return settings
    }

    private static func sslContext(_ settings: TLSConfiguration, target: PostgresTarget) throws(ScreensPipeError) -> NIOSSLContext {
        do {
            return try NIOSSLContext(configuration: settings)
        } catch {
            throw ScreensPipeError.configuration(
                "cannot set up TLS for \(target)\(target.caFile.map { " with the CA file \($0)" } ?? ""): \(error)")
        }
    }

    /// `cannot <action> at postgres://user@host:port/db: <why>`, with the server's message and
    /// SQLSTATE when it sent one. A refused login is an `.authentication` error, everything else
    /// `code`: never `.connectivity`, which would make the cache stage take a database failure
    /// for the portal's and fall back.
    static func failure(
        _ error: any Error, action: String, target: PostgresTarget, code: ScreensPipeError.Code = .cache
    ) -> ScreensPipeError {
        if let failure = error as? ScreensPipeError { return failure }
        if let transaction = error as? PostgresTransactionError,
            let cause = transaction.closureError ?? transaction.beginError ?? transaction.commitError ?? transaction.rollbackError
        {
            return failure(cause, action: action, target: target, code: code)
        }
        if error is CancellationError { return .cancelled("cancelled before it could \(action) at \(target)") }
        guard let psql = error as? PSQLError else {
            return ScreensPipeError(code, "cannot \(action) at \(target): \(redacted(String(describing: error), target))")
        }
        switch psql.code {
        case .server:
            let message = psql.serverInfo?[.message] ?? "an error"
            let state = psql.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            let detail = psql.serverInfo?[.detail].map { "; \($0)" } ?? ""
            let chosen: ScreensPipeError.Code = ["28P01", "28000"].contains(psql.serverInfo?[.sqlState] ?? "") ? .authentication : code
            return ScreensPipeError(chosen, "cannot \(action) at \(target): the server said: \(redacted(message + detail, target))\(state)")
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed:
            let underlying = psql.underlying.map { ": \(redacted(String(describing: $0), target))" } ?? ""
            return ScreensPipeError(code, "cannot \(action): no connection to \(target)\(underlying)")
        case .sslUnsupported:
            return ScreensPipeError(code, "cannot \(action): \(target) does not offer TLS, and tls is require")
        case .authMechanismRequiresPassword:
            return ScreensPipeError(
                .authentication, "cannot \(action) at \(target): the server asks for a password and none was given (in the URL or PGPASSWORD)")
        case .queryCancelled:
            return .cancelled("cancelled before it could \(action) at \(target)")
        default:
            let underlying = psql.underlying.map { ": \(redacted(String(describing: $0), target))" } ?? ""
            return ScreensPipeError(code, "cannot \(action) at \(target): \(psql.code)\(underlying)")
        }
    }

    /// `text` with the password replaced, in case some layer below quoted it.
    static func redacted(_ text: String, _ target: PostgresTarget) -> String {
        guard let password = target.password?.revealed, !password.isEmpty else { return text }
        return text.replacing(password, with: "<redacted>")
    }
}
