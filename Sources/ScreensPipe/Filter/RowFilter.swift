import ScreensBus

/// The filter stage: `filter.where`, compiled once and run on every converted row.
///
/// The language and its type rules are in README.md ("The filter language"); in short: paths,
/// literals, `== != < <= > >=`, `contains starts-with ends-with matches in exists`,
/// `not and or` and parentheses.
package struct RowFilter: Sendable {
    /// The expression as written.
    public let expression: String
    private let predicate: FilterPredicate

    /// Compiles `expression`.
    ///
    /// - Parameter location: where the expression starts in the pipeline file; errors then
    ///   carry the file position of the offending column.
    /// - Throws: a `.configuration` error whose message shows the expression with a caret
    ///   under the column, e.g. `unexpected 'andd' at column 18` and two more lines.
    public init(expression: String, location: SourceLocation? = nil) throws(ScreensPipeError) {
        do throws(FilterSyntaxError) {
            let tree = try FilterParser.parse(expression)
            predicate = try FilterCompiler(lexer: FilterLexer(expression)).compile(tree)
        } catch {
            throw error.pipelineError(expression: expression, location: location)
        }
        self.expression = expression
    }

    /// Whether `row` is selected.
    ///
    /// - Throws: a `.filter` error when an operator meets types it does not accept, such
    ///   as `price < 3` on a row whose price is a string.
    public func matches(_ row: JSONValue) throws(ScreensPipeError) -> Bool {
        try predicate(row)
    }
}
