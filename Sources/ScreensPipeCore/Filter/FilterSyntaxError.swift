import ScreensBus

/// A problem in an expression at a UTF-8 offset; ``RowFilter`` turns it into a
/// `.configuration` error with the expression and a caret under the column.
struct FilterSyntaxError: Error, Sendable {
    var offset: Int
    var message: String

    /// `message at column N`, then the expression's line and a caret under the column.
    /// With a `location` (where the expression starts in the pipeline file), the error's
    /// location is the column inside the file.
    func pipelineError(expression: String, location: SourceLocation?) -> ScreensPipeError {
        let bytes = Array(expression.utf8)
        let offset = min(offset, bytes.count)
        let lineStart = bytes[..<offset].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
        let lineEnd = bytes[offset...].firstIndex(of: 0x0A) ?? bytes.count
        let lineIndex = bytes[..<lineStart].count(where: { $0 == 0x0A })
        let before = String(decoding: bytes[lineStart..<offset], as: UTF8.self)
        let line = String(decoding: bytes[lineStart..<lineEnd], as: UTF8.self)
        let column = before.count + 1
        // Tabs stay tabs so the caret lines up however the terminal renders them.
        let padding = String(before.map { $0 == "\t" ? "\t" : " " })
        let where_ = lineIndex == 0 ? "column \(column)" : "line \(lineIndex + 1), column \(column)"
        let text = "\(message) at \(where_)\n  \(line)\n  \(padding)^"
        let fileLocation = location.map { start in
            SourceLocation(
                file: start.file, line: start.line + lineIndex,
                // A later line of a literal block is indented like its first one.
                column: start.column + column - 1)
        }
        return ScreensPipeError.configuration(text, at: fileLocation)
    }
}
