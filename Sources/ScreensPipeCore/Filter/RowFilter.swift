import ScreensBus

/// The filter stage: `filter.where`, compiled once and run on every converted row.
///
/// The language and its type rules are in ConvertAndFilter.md ("The filter language"); in short: paths,
/// literals, `== != < <= > >=`, `contains starts-with ends-with matches in exists`,
/// `not and or` and parentheses.
package struct RowFilter: Sendable {
    /// The expression as written.
    package let expression: String
    private let predicate: FilterPredicate
    /// The members of a row the expression reads: the first key of each of its paths. A row
    /// holding only these members is selected exactly when the whole row is.
    let readKeys: Set<String>
    /// The expression's tree, for ``textPredicate(slots:)``.
    private let tree: FilterExpression

    /// Compiles `expression`.
    ///
    /// - Parameter location: where the expression starts in the pipeline file; errors then
    ///   carry the file position of the offending column.
    /// - Throws: a `.configuration` error whose message shows the expression with a caret
    ///   under the column, e.g. `unexpected 'andd' at column 18` and two more lines.
    package init(expression: String, location: SourceLocation? = nil) throws(ScreensPipeError) {
        do throws(FilterSyntaxError) {
            let tree = try FilterParser.parse(expression)
            predicate = try FilterCompiler(lexer: FilterLexer(expression)).compile(tree)
            readKeys = tree.readKeys
            self.tree = tree
        } catch {
            throw error.pipelineError(expression: expression, location: location)
        }
        self.expression = expression
    }

    /// Whether `row` is selected.
    ///
    /// - Throws: a `.filter` error when an operator meets types it does not accept, such
    ///   as `price < 3` on a row whose price is a string.
    package func matches(_ row: JSONValue) throws(ScreensPipeError) -> Bool {
        try predicate(row)
    }

    /// The filter over its members' texts, each key of ``readKeys`` in its slot of `slots`;
    /// nil when some condition always needs values (see ``MemberTextPredicate``).
    func textPredicate(slots: [String: Int]) -> MemberTextPredicate? {
        MemberTextFilterCompiler(slots: slots).compile(tree)
    }
}

extension FilterExpression {
    /// The first key of every path in the expression (a path that starts with an index
    /// reads no member of an object row).
    var readKeys: Set<String> {
        var keys: Set<String> = []
        func add(_ path: FieldPath) {
            if case .key(let key) = path.components[0] { keys.insert(key) }
        }
        func add(_ operand: FilterOperand) {
            if case .path(let path) = operand { add(path) }
        }
        // An explicit stack, not recursion: a long chain of `and`s cannot run out of stack.
        var pending = [self]
        while let node = pending.popLast() {
            switch node {
            case .or(let lhs, let rhs), .and(let lhs, let rhs): pending += [lhs, rhs]
            case .not(let inner): pending.append(inner)
            case .comparison(let lhs, _, let rhs, _): add(lhs); add(rhs)
            case .matches(let operand, _, _, _), .membership(let operand, _, _), .truth(let operand, _): add(operand)
            case .exists(let path, _): add(path)
            }
        }
        return keys
    }
}
