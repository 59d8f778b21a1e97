public import ScreensBus

extension Pipeline {
    /// Creates a pipeline from a pipeline file (DESIGN §8).
    ///
    /// `${VAR}` references are expanded from `environment.variables`, `overrides` are applied
    /// like `--set key.path=value`, and the model, field mapping and filter expression are
    /// compiled, so every mistake in the file is reported here, before any request is sent.
    ///
    /// ```swift
    /// let pipeline = try Pipeline(
    ///     file: "pipelines/bookmarks.yaml",
    ///     overrides: ["filter.limit=10"],
    ///     environment: .current(sandbox: BundledSandbox()))
    /// ```
    ///
    /// - Throws: ``ConfigurationErrors``: every problem, each as `file:line:column: message`.
    public convenience init(
        file path: String, overrides: [String] = [], environment: PipelineEnvironment = .current(),
        bus: EventBus = EventBus()
    ) throws(ConfigurationErrors) {
        let spec = try PipelineLoader(environment: environment.variables).load(file: path, overrides: overrides)
        try PipelineValidation.check(spec)
        self.init(spec: spec, environment: environment, bus: bus)
    }

    /// Creates a pipeline from the text of a pipeline file.
    ///
    /// `name` names the text in error messages and, unless it is `<string>`, gives the
    /// pipeline's default name (a `name:` key in the text wins).
    ///
    /// - Throws: ``ConfigurationErrors``, located in the text.
    public convenience init(
        yaml text: String, name: String = "<string>", overrides: [String] = [],
        environment: PipelineEnvironment = .current(), bus: EventBus = EventBus()
    ) throws(ConfigurationErrors) {
        let spec = try PipelineLoader(environment: environment.variables).load(yaml: text, file: name, overrides: overrides)
        try PipelineValidation.check(spec)
        self.init(spec: spec, environment: environment, bus: bus)
    }
}
