import Synchronization

/// The process's holders of signed-in credentials of one kind (OAuth 2 token providers,
/// portal session keepers), one per identity: every list of the process with the same
/// credentials and route (a fan-out's child lists, a service's repeated runs) shares one
/// holder, so they share its token or session instead of signing in each. The identity
/// is kept as a digest, so no secret is a key in the clear.
final class CredentialHolders<Holder: AnyObject & Sendable>: Sendable {
    private let holders = Mutex<[String: Holder]>([:])

    /// The holder of `identity` (its fields, secrets included), made by `make` the first time.
    func holder(identity: [String], make: () -> Holder) -> Holder {
        let key = CacheKey.digest(identity.joined(separator: "\n"))
        return holders.withLock { holders in
            if let existing = holders[key] { return existing }
            let made = make()
            holders[key] = made
            return made
        }
    }
}

extension SourceSpec {
    /// The route part of a sign-in's identity: the TLS settings and `proxy`, because the
    /// sign-in's requests carry secrets, and a pipeline that verifies its server, names a
    /// proxy or presents a certificate must never be served by a sign-in that went another way.
    func signInRoute(proxy: ProxySpec) -> [String] {
        [caFile ?? "", insecureSkipTLSVerify ? "insecure" : "verified", "\(proxy.hashValue)", "\(clientCertificate.hashValue)"]
    }
}
