/// When a `liferay` sink's writes reach the portal, as Liferay Screens' write interactors
/// take the offline policies (`ServerWriteConnectorInteractor`): `write-policy:` in the sink.
public enum WritePolicy: String, Sendable, Hashable, CaseIterable {
    /// Sent now; a portal that cannot be reached fails the write (the behaviour before
    /// write policies existed).
    case remoteOnly = "remote-only"
    /// Sent now; a row the portal cannot be reached for stays in the outbox, pending, for
    /// `screens-pipe outbox sync`.
    case remoteFirst = "remote-first"
    /// Kept in the outbox first, then the whole outbox is synced (older pending writes
    /// first); what cannot be sent stays pending.
    case cacheFirst = "cache-first"
    /// Kept in the outbox only; `screens-pipe outbox sync` sends it later.
    case cacheOnly = "cache-only"

    /// Whether writes go through the outbox.
    var usesOutbox: Bool { self != .remoteOnly }
}
