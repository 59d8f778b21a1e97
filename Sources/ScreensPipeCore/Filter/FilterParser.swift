import ScreensBus

/// Recursive descent over the grammar (lowest precedence first):
///
///     expression := and ( "or" and )*
///     and        := unary ( "and" unary )*
///     unary      := "not" unary | "(" expression ")" | predicate
///     predicate  := operand ( compare operand | "matches" string | "in" list | "exists" )?
///     compare    := "==" | "!=" | "<" | "<=" | ">" | ">=" | "contains" | "starts-with" | "ends-with"
///     operand    := string | number | "true" | "false" | "null" | path
///     list       := "[" ( literal ( "," literal )* )? "]"
///
/// `not` negates a whole predicate: `not url exists` is `not (url exists)`.
///
/// Parsing, compiling and evaluating all recurse over the tree, so its size is bounded: a
/// hostile or generated expression (100,000 nested parentheses, or conditions chained with
/// `and`) is a syntax error instead of a stack overflow. Found by the fuzz tests.
struct FilterParser {
    /// Parentheses and `not`s open at once.
    static let maxNesting = 64
    /// Conditions (predicates) in one expression; each `and`/`or` adds a level to the tree.
    static let maxConditions = 512

    private let lexer: FilterLexer
    private var current: FilterToken
    private var nesting = 0
    private var conditions = 0

    static let keywords: Set<String> = [
        "and", "or", "not", "contains", "starts-with", "ends-with", "matches", "in", "exists", "true", "false", "null",
    ]

    static func parse(_ expression: String) throws(FilterSyntaxError) -> FilterExpression {
        var parser = try FilterParser(lexer: FilterLexer(expression))
        let tree = try parser.expression()
        guard parser.current.kind == .end else { throw parser.unexpected() }
        return tree
    }

    private init(lexer: FilterLexer) throws(FilterSyntaxError) {
        self.lexer = lexer
        current = try lexer.token(at: 0)
    }

    private mutating func advance() throws(FilterSyntaxError) {
        current = try lexer.token(at: current.range.upperBound)
    }

    private func isWord(_ word: String) -> Bool { current.kind == .word(word) }

    /// "unexpected 'andd'", or "unexpected end of expression".
    private func unexpected(_ expectation: String? = nil) -> FilterSyntaxError {
        let found = current.kind == .end ? "end of expression" : "'\(lexer.text(current.range))'"
        let message = expectation.map { "expected \($0), found \(found)" } ?? "unexpected \(found)"
        return FilterSyntaxError(offset: current.range.lowerBound, message: message)
    }

    private mutating func expression() throws(FilterSyntaxError) -> FilterExpression {
        var left = try conjunction()
        while isWord("or") {
            try advance()
            left = .or(left, try conjunction())
        }
        return left
    }

    private mutating func conjunction() throws(FilterSyntaxError) -> FilterExpression {
        var left = try unary()
        while isWord("and") {
            try advance()
            left = .and(left, try unary())
        }
        return left
    }

    private mutating func unary() throws(FilterSyntaxError) -> FilterExpression {
        let opens = isWord("not") || current.kind == .leftParen
        if opens {
            guard nesting < Self.maxNesting else {
                throw FilterSyntaxError(offset: current.range.lowerBound, message: "nesting deeper than \(Self.maxNesting) levels")
            }
            nesting += 1
        }
        defer { if opens { nesting -= 1 } }
        if isWord("not") {
            try advance()
            return .not(try unary())
        }
        if current.kind == .leftParen {
            try advance()
            let inner = try expression()
            guard current.kind == .rightParen else { throw unexpected("')'") }
            try advance()
            return inner
        }
        return try predicate()
    }

    private mutating func predicate() throws(FilterSyntaxError) -> FilterExpression {
        let start = current.range.lowerBound
        guard conditions < Self.maxConditions else {
            throw FilterSyntaxError(offset: start, message: "more than \(Self.maxConditions) conditions")
        }
        conditions += 1
        let left = try operand()
        let anchor = current.range.lowerBound
        func span(_ parser: FilterParser) -> SourceSpan {
            SourceSpan(range: start..<parser.current.range.lowerBound, anchor: anchor)
        }
        switch current.kind {
        case .comparison(let op):
            try advance()
            let rightStart = current.range.lowerBound
            let right = try operand()
            var located = span(self)
            located.rightStart = rightStart
            return .comparison(left, op, right, located)
        case .word("contains"), .word("starts-with"), .word("ends-with"):
            let op = FilterOperator(rawValue: lexer.text(current.range))!
            try advance()
            let rightStart = current.range.lowerBound
            let right = try operand()
            var located = span(self)
            located.rightStart = rightStart
            return .comparison(left, op, right, located)
        case .word("matches"):
            try advance()
            guard case .string(let pattern) = current.kind else { throw unexpected("a regular expression in quotes") }
            let patternOffset = current.range.lowerBound
            try advance()
            return .matches(left, pattern: pattern, patternOffset: patternOffset, span(self))
        case .word("in"):
            try advance()
            let list = try literalList()
            return .membership(left, list, span(self))
        case .word("exists"):
            guard case .path(let path) = left else {
                throw FilterSyntaxError(offset: anchor, message: "'exists' needs a field path on its left")
            }
            try advance()
            return .exists(path, span(self))
        default:
            return .truth(left, SourceSpan(range: start..<anchor, anchor: start))
        }
    }

    private mutating func operand() throws(FilterSyntaxError) -> FilterOperand {
        switch current.kind {
        case .string(let text):
            try advance()
            return .literal(.string(text))
        case .number(let value):
            try advance()
            return .literal(value)
        case .word("true"):
            try advance()
            return .literal(.bool(true))
        case .word("false"):
            try advance()
            return .literal(.bool(false))
        case .word("null"):
            try advance()
            return .literal(.null)
        case .word(let word) where !Self.keywords.contains(word):
            return .path(try path())
        case .leftBracket:
            return .path(try path())
        default:
            throw unexpected("a value or a field")
        }
    }

    /// A path starting at the current token, read by the shared path grammar.
    private mutating func path() throws(FilterSyntaxError) -> FieldPath {
        let parsed: (FieldPath, Int)
        do throws(FieldPathSyntaxError) {
            parsed = try FieldPathParser.parse(lexer.bytes, at: current.range.lowerBound)
        } catch {
            throw FilterSyntaxError(offset: error.offset, message: error.message)
        }
        current = try lexer.token(at: parsed.1)
        return parsed.0
    }

    private mutating func literalList() throws(FilterSyntaxError) -> [JSONValue] {
        guard current.kind == .leftBracket else { throw unexpected("'[' after 'in'") }
        try advance()
        var values: [JSONValue] = []
        if current.kind == .rightBracket {
            try advance()
            return values
        }
        while true {
            guard case .literal(let value) = try literalOperand() else { throw unexpected("a literal") }
            values.append(value)
            switch current.kind {
            case .comma: try advance()
            case .rightBracket:
                try advance()
                return values
            default: throw unexpected("',' or ']'")
            }
        }
    }

    private mutating func literalOperand() throws(FilterSyntaxError) -> FilterOperand {
        switch current.kind {
        case .string, .number, .word("true"), .word("false"), .word("null"): return try operand()
        default: throw unexpected("a literal")
        }
    }
}
