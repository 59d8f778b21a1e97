internal import class Foundation.ProcessInfo

extension PipelineEnvironment {
    /// The environment of this process: its variables (for `${VAR}`, the cache location and
    /// `NO_COLOR`) and, when given, the launcher for `server: sandbox`.
    ///
    /// `PipelineEnvironment()` starts from no variables at all, which suits tests; a service
    /// usually wants this one.
    public static func current(sandbox: (any SandboxLauncher)? = nil) -> PipelineEnvironment {
        PipelineEnvironment(variables: ProcessInfo.processInfo.environment, sandbox: sandbox)
    }
}
