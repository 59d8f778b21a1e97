/// The ranges of the numbers a pipeline file sets. A value outside its range is a
/// configuration error naming the key, the position and the range, so no later arithmetic
/// (row offsets, backoff doublings, libcurl's millisecond timeouts) can overflow.
///
/// With these bounds the largest row offset is `maximumPageSize * maximumPages` (10^13),
/// far inside `Int`.
enum ConfigLimits {
    /// `first-page-size`, `page-size`: rows per page.
    static let maximumPageSize = 1_000_000
    /// `max-pages`.
    static let maximumPages = 10_000_000
    /// `retry.attempts`.
    static let maximumAttempts = 100
    /// REST `first-page`.
    static let maximumFirstPage = 1_000_000_000
    /// `timeout`, `connect-timeout`, `retry.backoff`, `retry.max-backoff`.
    static let maximumTimeout = Duration.seconds(24 * 3600)
    /// `cache.ttl`.
    static let maximumTTL = Duration.seconds(3650 * 86_400)
    /// `cache.lock-wait`: a day; waiting longer than that is a wedged run, not a busy one.
    static let maximumLockWait = Duration.seconds(24 * 3600)
}
