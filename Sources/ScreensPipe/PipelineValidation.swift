/// Checks of a decoded spec that need the other stages: the model and field mapping
/// compile, the filter expression parses. `validate` and `run` both call it, so a bad
/// expression is a configuration error (exit 2) before any request is sent.
public enum PipelineValidation {
    /// Checks that `spec`'s convert stage builds, its filter expression parses, and the
    /// fields the filter and `sink.fields` name are fields the convert stage writes.
    /// Throws every error found, not just the first.
    public static func check(_ spec: PipelineSpec) throws(ConfigurationErrors) {
        var errors: [ScreensPipeError] = []
        do throws(ScreensPipeError) {
            _ = try RowConverter(spec: spec.convert)
        } catch {
            errors.append(error)
        }
        if let expression = spec.filter?.expression {
            do throws(ScreensPipeError) {
                _ = try RowFilter(expression: expression, location: spec.filter?.expressionLocation)
            } catch {
                errors.append(error)
            }
        }
        errors += FanOutPlan.conflicts(spec)
        if errors.isEmpty { errors = unknownFieldErrors(spec) }
        if !errors.isEmpty { throw ConfigurationErrors(errors: errors) }
    }
}

extension PipelineLoader {
    /// Loads a pipeline file and checks it as `validate` does: YAML, keys and types, then
    /// the model, field mapping and filter expression. Every problem is reported before any
    /// request is sent.
    public func loadChecked(file path: String, overrides: [String] = []) throws(ConfigurationErrors) -> PipelineSpec {
        let spec = try load(file: path, overrides: overrides)
        try PipelineValidation.check(spec)
        return spec
    }

    /// Loads pipeline YAML text and checks it as `validate` does (see ``loadChecked(file:overrides:)``).
    public func loadChecked(yaml text: String, file: String = "<string>", overrides: [String] = []) throws(ConfigurationErrors) -> PipelineSpec {
        let spec = try load(yaml: text, file: file, overrides: overrides)
        try PipelineValidation.check(spec)
        return spec
    }
}
