import ScreensBus

extension Pipeline {
    /// Creates a pipeline from a pipeline file (architecture.md, "Stages and the bus"; PipelineFileReference.md).
    ///
    /// `${VAR}` references are expanded from `environment.variables`, `overrides` are applied
    /// like `--set key.path=value`, and the model, field mapping and filter expression are
    /// compiled, so every mistake in the file is reported here, before any request is sent.
    ///
    /// ```swift
    /// let pipeline = try Pipeline(
    ///     file: "pipelines/bookmarks.yaml",
    ///     overrides: ["filter.limit=10"],
    ///     sink: .discard,
    ///     environment: .current(sandbox: BundledSandbox()))
    /// ```
    ///
    /// - Parameters:
    ///   - sink: Replaces the file's sink destination: `.discard` when only the service's own
    ///     subscribers should see the rows (the file's sink usually writes to stdout).
    /// - Throws: ``ScreensPipeError``: every problem, each as `file:line:column: message`.
    public convenience init(
        file path: String, overrides: [String] = [], sink: SinkDestination? = nil,
        environment: PipelineEnvironment = .current(), bus: EventBus = EventBus()
    ) throws(ScreensPipeError) {
        var spec = try PipelineLoader(environment: environment.variables).loadChecked(file: path, overrides: overrides)
        if let sink { spec.sink.destination = sink }
        self.init(spec: spec, environment: environment, bus: bus)
    }

    /// Creates a pipeline from the text of a pipeline file.
    ///
    /// `name` names the text in error messages and, unless it is `<string>`, gives the
    /// pipeline's default name (a `name:` key in the text wins).
    ///
    /// - Parameters:
    ///   - sink: Replaces the text's sink destination (see ``init(file:overrides:sink:environment:bus:)``).
    /// - Throws: ``ScreensPipeError``, located in the text.
    public convenience init(
        yaml text: String, name: String = "<string>", overrides: [String] = [], sink: SinkDestination? = nil,
        environment: PipelineEnvironment = .current(), bus: EventBus = EventBus()
    ) throws(ScreensPipeError) {
        var spec = try PipelineLoader(environment: environment.variables).loadChecked(yaml: text, file: name, overrides: overrides)
        if let sink { spec.sink.destination = sink }
        self.init(spec: spec, environment: environment, bus: bus)
    }
}
