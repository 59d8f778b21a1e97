/// Checks of a decoded spec that need the other stages: the model and field mapping
/// compile, the filter expression parses. `validate` and `run` both call it, so a bad
/// expression is a configuration error (exit 2) before any request is sent.
public enum PipelineValidation {
    /// Checks that `spec`'s convert stage builds, its filter expression parses, the
    /// fields the filter and `sink.fields` name are fields the convert stage writes, and the
    /// filter compares a field of a declared type only with literals of that type.
    /// Throws every error found, not just the first.
    public static func check(_ spec: PipelineSpec) throws(ScreensPipeError) {
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
        // Both kinds at once: a declared type's check skips the fields that are unknown.
        if errors.isEmpty { errors = unknownFieldErrors(spec) + declaredTypeErrors(spec) }
        if !errors.isEmpty { throw ScreensPipeError(errors: errors) }
    }
}

extension PipelineLoader {
    /// Loads a pipeline file and checks it as `validate` does: YAML, keys and types, then
    /// the model, field mapping and filter expression. Every problem is reported before any
    /// request is sent.
    ///
    /// An unset `${NAME}` is an error, reported with every other problem of the file (its
    /// model, fields and filter are checked all the same; see ``check(file:overrides:)``).
    public func loadChecked(file path: String, overrides: [String] = []) throws(ScreensPipeError) -> PipelineSpec {
        try check(file: path, overrides: overrides).runnableSpec()
    }

    /// Loads pipeline YAML text and checks it as `validate` does (see ``loadChecked(file:overrides:)``).
    public func loadChecked(yaml text: String, file: String = "<string>", overrides: [String] = []) throws(ScreensPipeError) -> PipelineSpec {
        try check(yaml: text, file: file, overrides: overrides).runnableSpec()
    }
}

extension PipelineCheck {
    /// The spec, when nothing is wrong and every variable is set; else every error.
    func runnableSpec() throws(ScreensPipeError) -> PipelineSpec {
        guard allErrors.isEmpty, let spec else { throw ScreensPipeError(errors: allErrors) }
        return spec
    }
}
