public import struct Foundation.Date

extension PipelineEnvironment {
    /// Where the default cache lives (``PipelineEnvironment/cacheDirectory``).
    public enum CacheDirectory: Sendable, Hashable {
        /// This directory (created with mode 0700 when missing): `cache.sqlite` and the locks
        /// go in it.
        case directory(String)
        /// `SCREENS_PIPE_CACHE_DIR`, else `XDG_CACHE_HOME/screens-pipe`, from the
        /// environment's ``PipelineEnvironment/variables`` only; with neither, a pipeline that
        /// needs the default cache is a configuration error before anything is fetched. The
        /// library's default: nothing is written under `$HOME` unless asked.
        case fromVariables
        /// As `.fromVariables`, else `~/.cache/screens-pipe`: the command line's default.
        case userCache
    }

    /// The variables a run hands its stores (cache, state, journal, locks): ``variables``
    /// with ``cacheDirectory`` applied, so one rule (`CacheLocation`) decides the path.
    package var storageVariables: [String: String] {
        var resolved = variables
        switch cacheDirectory {
        case .directory(let path): resolved["SCREENS_PIPE_CACHE_DIR"] = path
        case .fromVariables: resolved[CacheLocation.variablesOnlyKey] = "1"
        case .userCache: break
        }
        return resolved
    }
}

/// A source of the current time, as a ``PipelineEnvironment`` setting.
public struct WallClock: Sendable {
    /// The current time.
    public let now: @Sendable () -> Date

    /// A clock that answers `now()`.
    public init(now: @escaping @Sendable () -> Date) { self.now = now }

    /// The system's clock.
    public static let system = WallClock(now: { Date() })

    /// A clock that always says `date`: a test's fixed moment.
    public static func fixed(_ date: Date) -> WallClock { WallClock(now: { date }) }
}
