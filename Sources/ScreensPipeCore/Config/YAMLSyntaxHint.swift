/// What to check after one of libyaml's syntax errors, whose words ("mapping values are not
/// allowed in this context", "did not find expected key") name the parser's state, not the
/// mistake. Nearly all of them come from indentation, a tab, or a value that needed quotes;
/// the hint says which to look at, and the position stays libyaml's.
enum YAMLSyntaxHint {
    /// The hint for libyaml's `problem`, given the text of the line it points at; nil for
    /// problems with no usual cause.
    static func hint(problem: String, line: String) -> String? {
        if line.contains("\t") && (problem.contains("tab") || problem.contains("cannot start any token")) {
            return "YAML indents with spaces, not tabs: replace the tabs on this line with spaces"
        }
        switch problem {
        case "mapping values are not allowed in this context":
            return "a value that holds ': ' needs quotes (key: \"a: b\"); or this line is indented deeper than the key above it, which makes it part of that key's value"
        case "did not find expected key":
            return "check this line's indentation: the keys of one mapping start in the same column, and a line indented less than its neighbours ends their mapping"
        case "did not find expected '-' indicator":
            return "check this line's indentation: the items of one list start with '- ' in the same column"
        case "could not find expected ':'":
            return "a key needs ': ' after it; a value that goes on to the next line needs quotes, or the next line's indentation is off"
        case "block sequence entries are not allowed in this context":
            return "a list starts on the line after its key ('key:' alone, then '- item' lines indented under it), or is written [a, b]"
        case "found character that cannot start any token":
            return "a value that starts with '@', '`' or '%' needs quotes"
        case "did not find expected node content":
            return "a value is missing here, or starts with a character that needs quotes"
        case "did not find expected ',' or '}'", "did not find expected ',' or ']'":
            return "inside { } and [ ], entries are separated by ', ' and a value that holds ':', ',', '{' or '[' needs quotes"
        case "found unexpected end of stream":
            return "a quote or bracket is opened and never closed"
        default:
            return nil
        }
    }
}
