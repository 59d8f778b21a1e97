internal import class Foundation.ProcessInfo

extension PipelineEnvironment {
    /// The environment of this process: its variables (for `${VAR}`, the cache location and
    /// `NO_COLOR`) and, when given, the launcher for `server: sandbox` and the directory of
    /// the default cache (by default only what `SCREENS_PIPE_CACHE_DIR` or `XDG_CACHE_HOME`
    /// name: nothing under `$HOME` unless `.userCache` asks for it).
    ///
    /// `PipelineEnvironment()` starts from no variables at all, which suits tests; a service
    /// usually wants this one.
    public static func current(
        sandbox: (any SandboxLauncher)? = nil, cacheDirectory: CacheDirectory = .fromVariables
    ) -> PipelineEnvironment {
        PipelineEnvironment(variables: ProcessInfo.processInfo.environment, sandbox: sandbox, cacheDirectory: cacheDirectory)
    }
}
