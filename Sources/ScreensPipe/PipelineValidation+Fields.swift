import ScreensBus

extension PipelineValidation {
    /// Paths in `filter.where` and `sink.fields` that start with a field the convert stage
    /// never writes (`urll` on the bookmark model), each with a "did you mean". Such a
    /// typo would otherwise select no rows, or write nulls, without a word.
    ///
    /// Only when the output fields are known: a `fields:` mapping or a fixed model
    /// (bookmark, web-content, asset); DDL records and unconverted rows have any fields.
    static func unknownFieldErrors(_ spec: PipelineSpec) -> [ScreensPipeError] {
        guard let (known, owner) = outputFields(spec.convert) else { return [] }
        var fields = known
        // `include:` adds the parents' fields after conversion.
        if !spec.source.include.isEmpty { fields.append(ParentFields.key) }
        func problem(_ name: String) -> String {
            var message = "'\(name)' is not a field of \(owner)"
            if let suggestion = KeySuggestion.closest(to: name, among: fields) { message += "; did you mean '\(suggestion)'?" }
            return message
        }
        var errors: [ScreensPipeError] = []
        if let expression = spec.filter?.expression, let tree = try? FilterParser.parse(expression) {
            var seen = Set<String>()
            for (name, offset) in firstKeys(in: tree) where !fields.contains(name) && seen.insert(name).inserted {
                errors.append(FilterSyntaxError(offset: offset, message: problem(name))
                    .pipelineError(expression: expression, location: spec.filter?.expressionLocation))
            }
        }
        for path in spec.sink.fields ?? [] {
            guard case .key(let name)? = path.components.first, !fields.contains(name) else { continue }
            errors.append(ScreensPipeError.configuration("sink.fields: \(problem(name))"))
        }
        return errors
    }

    /// The names the convert stage writes, and how messages name their source.
    private static func outputFields(_ convert: ConvertSpec?) -> ([String], String)? {
        if let mapping = convert?.fields { return (mapping.map(\.name), "the convert.fields mapping") }
        guard let model = convert?.model, case .fields(let list) = BuiltInModel(model) else { return nil }
        return (list.fields.map(\.name), "the \(model.rawValue) model")
    }

    /// The first key of every path in `expression`, with the offset errors point at.
    private static func firstKeys(in expression: FilterExpression) -> [(String, Int)] {
        func key(_ operand: FilterOperand, _ span: SourceSpan) -> [(String, Int)] {
            guard case .path(let path) = operand, case .key(let name)? = path.components.first else { return [] }
            return [(name, span.range.lowerBound)]
        }
        switch expression {
        case .or(let left, let right), .and(let left, let right): return firstKeys(in: left) + firstKeys(in: right)
        case .not(let inner): return firstKeys(in: inner)
        case .comparison(let left, _, let right, let span): return key(left, span) + key(right, span)
        case .matches(let operand, _, _, let span), .membership(let operand, _, let span), .truth(let operand, let span):
            return key(operand, span)
        case .exists(let path, let span): return key(.path(path), span)
        }
    }
}
