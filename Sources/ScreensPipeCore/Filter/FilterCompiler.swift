import ScreensBus

/// A compiled condition: called once per row, with nothing left to parse.
typealias FilterPredicate = @Sendable (JSONValue) throws(ScreensPipeError) -> Bool

/// Turns a syntax tree into nested closures once, when the filter is built.
///
/// Paths are resolved by precompiled ``FieldPath``s, regular expressions are compiled here,
/// and a node whose operands are both literals is evaluated here, so `"a" < 3` is a
/// compile-time error rather than a failure on the first row.
struct FilterCompiler {
    let lexer: FilterLexer

    func compile(_ node: FilterExpression) throws(FilterSyntaxError) -> FilterPredicate {
        switch node {
        case .or(let left, let right):
            let (left, right) = (try compile(left), try compile(right))
            return { row throws(ScreensPipeError) in
                if try left(row) { return true }
                return try right(row)
            }
        case .and(let left, let right):
            let (left, right) = (try compile(left), try compile(right))
            return { row throws(ScreensPipeError) in
                if try !left(row) { return false }
                return try right(row)
            }
        case .not(let inner):
            let inner = try compile(inner)
            return { row throws(ScreensPipeError) in try !inner(row) }
        case .comparison(let left, let op, let right, let span):
            return try comparison(left, op, right, span)
        case .matches(let left, let pattern, let patternOffset, let span):
            return try matches(left, pattern: pattern, patternOffset: patternOffset, span)
        case .membership(let left, let list, _):
            let value = Self.reader(left)
            return { row in list.contains { FilterSemantics.equal(value(row), $0) } }
        case .exists(let path, _):
            return { row in path.resolve(in: row).map { !$0.isNull } ?? false }
        case .truth(let operand, let span):
            return try truth(operand, span)
        }
    }

    /// A closure reading an operand from a row; a missing path reads as null.
    static func reader(_ operand: FilterOperand) -> @Sendable (JSONValue) -> JSONValue {
        switch operand {
        case .literal(let value):
            return { _ in value }
        case .path(let path):
            if path.components.count == 1, case .key(let key) = path.components[0] {
                return { row in row[key] ?? .null }
            }
            return { row in path.resolve(in: row) ?? .null }
        }
    }

    private func source(_ span: SourceSpan) -> String {
        lexer.text(span.range).trimmingWhitespace
    }

    private func comparison(
        _ left: FilterOperand, _ op: FilterOperator, _ right: FilterOperand, _ span: SourceSpan
    ) throws(FilterSyntaxError) -> FilterPredicate {
        if case .literal(let a) = left, case .literal(let b) = right {
            do throws(FilterSemantics.TypeMismatch) {
                let result = try FilterSemantics.apply(op, a, b)
                return { _ in result }
            } catch {
                let describe = MismatchDescriber(op: op.rawValue, source: source(span))
                throw FilterSyntaxError(offset: span.anchor, message: describe.error(error).message)
            }
        }
        let describe = MismatchDescriber(op: op.rawValue, source: source(span))
        let (readLeft, readRight) = (Self.reader(left), Self.reader(right))
        return { row throws(ScreensPipeError) in
            do throws(FilterSemantics.TypeMismatch) {
                return try FilterSemantics.apply(op, readLeft(row), readRight(row))
            } catch {
                throw describe.error(error)
            }
        }
    }

    private func matches(
        _ left: FilterOperand, pattern: String, patternOffset: Int, _ span: SourceSpan
    ) throws(FilterSyntaxError) -> FilterPredicate {
        let regex: FilterRegex
        do {
            regex = try FilterRegex(pattern)
        } catch {
            throw FilterSyntaxError(offset: patternOffset, message: "invalid regular expression: \(error)")
        }
        let describe = MismatchDescriber(op: "matches", source: source(span))
        let read = Self.reader(left)
        let check = { @Sendable (value: JSONValue) throws(ScreensPipeError) -> Bool in
            switch value {
            case .null: return false
            case .string(let text): return regex.matches(text)
            default: throw describe.error(FilterSemantics.TypeMismatch(left: value, right: .string(pattern)))
            }
        }
        if case .literal(let value) = left {
            do {
                let result = try check(value)
                return { _ in result }
            } catch {
                throw FilterSyntaxError(offset: span.anchor, message: error.message)
            }
        }
        return { row throws(ScreensPipeError) in try check(read(row)) }
    }

    /// A bare operand: a bool is itself, null (a missing path) is false, anything else an error.
    private func truth(_ operand: FilterOperand, _ span: SourceSpan) throws(FilterSyntaxError) -> FilterPredicate {
        switch operand {
        case .literal(.bool(let value)):
            return { _ in value }
        case .literal(let value):
            throw FilterSyntaxError(offset: span.anchor, message: "\(value.briefDescription) is not a condition")
        case .path:
            let read = Self.reader(operand)
            let text = source(span)
            return { row throws(ScreensPipeError) in
                switch read(row) {
                case .bool(let value): return value
                case .null: return false
                case let other:
                    throw ScreensPipeError(
                        .filter, "'\(text)' is \(other.typeName) \(other.briefDescription), expected a bool for a condition")
                }
            }
        }
    }
}

/// Formats a type mismatch as a `.filter` error quoting the expression part:
/// "'price < 3': cannot apply '<' to string "cheap" and number 3".
struct MismatchDescriber: Sendable {
    let op: String
    let source: String

    func error(_ mismatch: FilterSemantics.TypeMismatch) -> ScreensPipeError {
        ScreensPipeError(
            .filter,
            "'\(source)': cannot apply '\(op)' to \(mismatch.left.typeName) \(mismatch.left.briefDescription)"
                + " and \(mismatch.right.typeName) \(mismatch.right.briefDescription)")
    }
}
