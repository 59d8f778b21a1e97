import ScreensBus

extension PipelineValidation {
    /// Paths in `filter.where` and `sink.fields` that start with a field the convert stage
    /// never writes (`urll` on the bookmark model), each with a "did you mean" and the
    /// fields there are. Such a typo would otherwise select no rows, or write nulls, without
    /// a word.
    ///
    /// Only when the output fields are known: a `fields:` mapping or a fixed model
    /// (bookmark, web-content, asset); DDL records and unconverted rows have any fields.
    static func unknownFieldErrors(_ spec: PipelineSpec) -> [ScreensPipeError] {
        guard let known = KnownFields(spec) else { return [] }
        var errors: [ScreensPipeError] = []
        if let expression = spec.filter?.expression, let tree = try? FilterParser.parse(expression) {
            var seen = Set<String>()
            for reference in fieldReferences(in: tree) where !known.contains(reference.name) && seen.insert(reference.name).inserted {
                var message = known.problem(reference.name)
                // `status == open`: a word on the right of a comparison with a field is
                // usually text that lost its quotes.
                if reference.comparedWithField { message += "; to compare with the text \(reference.name), quote it: \"\(reference.name)\"" }
                errors.append(FilterSyntaxError(offset: reference.offset, message: message)
                    .pipelineError(expression: expression, location: spec.filter?.expressionLocation))
            }
        }
        errors += unknownFieldErrors(in: spec.sink.fields ?? [], of: spec, naming: "sink.fields")
        return errors
    }

    /// The paths of `paths` that start with a field `spec`'s convert stage never writes, as
    /// errors that start with `option` (`--fields`, `sink.fields`); none when the fields the
    /// rows have are not known (no model, a DDL record model).
    public static func unknownFieldErrors(in paths: [FieldPath], of spec: PipelineSpec, naming option: String) -> [ScreensPipeError] {
        guard let known = KnownFields(spec) else { return [] }
        return paths.compactMap { path in
            guard case .key(let name)? = path.components.first, !known.contains(name) else { return nil }
            return ScreensPipeError.configuration("\(option): \(known.problem(name))")
        }
    }

    /// Comparisons of a field whose type is declared (`type: int` in `convert.fields`, or a
    /// model's) with a literal of another type: `comments > "2"` would fail on every row,
    /// and `comments == "2"` would never be true. Each error points at the literal.
    static func declaredTypeErrors(_ spec: PipelineSpec) -> [ScreensPipeError] {
        guard let known = KnownFields(spec), let expression = spec.filter?.expression,
            let tree = try? FilterParser.parse(expression)
        else { return [] }
        let lexer = FilterLexer(expression)
        var errors: [ScreensPipeError] = []
        for node in tree.nodes {
            let problem: (String, Int)?
            switch node {
            case .comparison(let left, let op, let right, let span):
                problem = comparisonProblem(left, op, right, span, known: known, lexer: lexer)
            case .matches(.path(let path), _, _, let span):
                guard let field = path.singleKey, let type = known.type(of: field), type != .string, type != .date else { continue }
                problem = ("'\(field)' is declared 'type: \(type.rawValue)', and 'matches' reads text: it would fail on every row", span.anchor)
            default:
                continue
            }
            if let problem {
                errors.append(FilterSyntaxError(offset: problem.1, message: problem.0)
                    .pipelineError(expression: expression, location: spec.filter?.expressionLocation))
            }
        }
        return errors
    }

    /// What is wrong with `left op right` given the declared types, and where to point.
    private static func comparisonProblem(
        _ left: FilterOperand, _ op: FilterOperator, _ right: FilterOperand, _ span: SourceSpan, known: KnownFields, lexer: FilterLexer
    ) -> (String, Int)? {
        // The field and the literal, and where the literal starts.
        let compared: (field: FieldPath, literal: JSONValue, literalOffset: Int)
        switch (left, right) {
        case (.path(let path), .literal(let value)):
            compared = (path, value, span.rightStart ?? span.anchor)
        case (.literal(let value), .path(let path)) where op.isSymmetric:
            compared = (path, value, span.range.lowerBound)
        default:
            return nil
        }
        guard let field = compared.field.singleKey, let type = known.type(of: field) else { return nil }
        let literal = compared.literal
        // A null literal asks whether the field is missing: fine for any type.
        guard !literal.isNull, !type.accepts(literal, in: op) else { return nil }
        let source = lexer.text(span.range).trimmingWhitespace
        let consequence: String
        switch op {
        case .equal: consequence = "is never true"
        case .notEqual: consequence = "is always true"
        default: consequence = "would fail on every row"
        }
        var message = "'\(field)' is declared 'type: \(type.rawValue)', so '\(source)' compares \(type.valueDescription) with \(literal.typeName) \(literal.briefDescription) and \(consequence)"
        if case .string(let text) = literal, type == .int || type == .number, let number = try? FilterLexer(text).token(at: 0),
            case .number = number.kind, number.range == 0..<text.utf8.count
        {
            message += "; compare with the number: write \(text) without quotes"
        }
        return (message, compared.literalOffset)
    }

    /// The first key of every path in `expression`, with the offset errors point at (the
    /// path's own first character) and whether it is the right side of a comparison whose
    /// left side is a field.
    private static func fieldReferences(in expression: FilterExpression) -> [(name: String, offset: Int, comparedWithField: Bool)] {
        var references: [(name: String, offset: Int, comparedWithField: Bool)] = []
        func add(_ operand: FilterOperand, at offset: Int, comparedWithField: Bool = false) {
            guard case .path(let path) = operand, case .key(let name)? = path.components.first else { return }
            references.append((name, offset, comparedWithField))
        }
        for node in expression.nodes {
            switch node {
            case .comparison(let left, _, let right, let span):
                add(left, at: span.range.lowerBound)
                if case .path = left { add(right, at: span.rightStart ?? span.anchor, comparedWithField: true) } else { add(right, at: span.rightStart ?? span.anchor) }
            case .matches(let operand, _, _, let span), .membership(let operand, _, let span), .truth(let operand, let span):
                add(operand, at: span.range.lowerBound)
            case .exists(let path, let span): add(.path(path), at: span.range.lowerBound)
            case .or, .and, .not: continue
            }
        }
        return references
    }
}

/// The fields rows have after the convert stage, with their declared types, when they are
/// known: a `fields:` mapping's names, or a fixed model's.
private struct KnownFields {
    /// Each field's name and declared type (nil: kept as found).
    var fields: [(name: String, type: FieldType?)]
    /// How messages name where the fields come from.
    var owner: String

    init?(_ spec: PipelineSpec) {
        if let mapping = spec.convert?.fields {
            fields = mapping.map { (name: $0.name, type: $0.type) }
            owner = "the convert.fields mapping"
        } else if let model = spec.convert?.model, case .fields(let list) = BuiltInModel(model) {
            fields = list.fields.map { (name: $0.name, type: $0.type) }
            owner = "the \(model.rawValue) model"
        } else {
            return nil
        }
        // `include:` adds the parents' fields after conversion.
        if !spec.source.include.isEmpty { fields.append((name: ParentFields.key, type: nil)) }
    }

    func contains(_ name: String) -> Bool { fields.contains { $0.name == name } }

    func type(of name: String) -> FieldType? { fields.first { $0.name == name }?.type }

    /// "'nmae' is not a field of the bookmark model; did you mean 'name'? (its fields: ...)".
    func problem(_ name: String) -> String {
        let names = fields.map(\.name)
        var message = "'\(name)' is not a field of \(owner)"
        if let suggestion = KeySuggestion.closest(to: name, among: names) { message += "; did you mean '\(suggestion)'?" }
        return message + " (its fields: \(names.joined(separator: ", ")))"
    }
}

extension FieldType {
    /// Whether a field of this type (or null) compared with `literal` by `op` can be true
    /// without a type error.
    fileprivate func accepts(_ literal: JSONValue, in op: FilterOperator) -> Bool {
        switch self {
        case .int, .number:
            return literal.isNumber && op != .contains && op != .startsWith && op != .endsWith
        case .string, .date:
            if case .string = literal { return true }
            return false
        case .bool:
            if case .bool = literal { return op == .equal || op == .notEqual }
            return false
        }
    }

    /// "an int", "a string"...: what the field holds, for messages.
    fileprivate var valueDescription: String {
        switch self {
        case .int: "an int"
        case .number: "a number"
        case .string: "a string"
        case .bool: "a bool"
        case .date: "a date (ISO 8601 text)"
        }
    }
}

extension FilterOperator {
    /// Whether swapping the operands keeps the question (`2 < x` is `x > 2`, but
    /// `"ab" contains x` is not `x contains "ab"`).
    fileprivate var isSymmetric: Bool {
        switch self {
        case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual: true
        case .contains, .startsWith, .endsWith: false
        }
    }
}

extension FieldPath {
    /// The key of a one-key path (`comments`), which names an output field as a whole.
    fileprivate var singleKey: String? {
        guard components.count == 1, case .key(let name) = components[0] else { return nil }
        return name
    }
}

extension FilterExpression {
    /// Every node of the tree, parents before children; an explicit stack, so a long chain
    /// of `and`s cannot run out of stack.
    var nodes: [FilterExpression] {
        var result: [FilterExpression] = []
        var pending = [self]
        while let node = pending.popLast() {
            result.append(node)
            switch node {
            case .or(let left, let right), .and(let left, let right): pending += [right, left]
            case .not(let inner): pending.append(inner)
            default: break
            }
        }
        return result
    }
}
