import Synchronization

/// A page's rows kept as their texts, checked but not yet parsed: their values are made
/// once, the first time a stage or a subscriber asks for them.
///
/// A run whose stages leave every row as it is (no convert, no filter, no incremental
/// cursor) writes each row's text and never needs its value: the page's rows are checked
/// (strictly, as a parse would) and sliced, and no tree is built. Anything that does read
/// the values (a subscriber that iterates events, a delegate) gets exactly what a parse of
/// the page would have given, made on first use and shared by every copy of the page.
public final class LazyRowValues: Sendable {
    /// Each row's text, whitespace between tokens left out.
    public let texts: JSONElementTexts
    private let values = Mutex<[JSONValue]?>(nil)

    /// Rows from texts that hold one valid JSON value each (as ``JSONValue/parse(_:keepingElementTextsAt:skippingElements:)``
    /// makes them).
    public init(texts: JSONElementTexts) {
        self.texts = texts
    }

    /// How many rows; never parses.
    public var count: Int { texts.count }

    /// The rows' values, parsed on first use.
    public var rows: [JSONValue] {
        values.withLock { cached in
            if let cached { return cached }
            let parsed = (0..<texts.count).map { position in texts.value(at: position) }
            cached = parsed
            return parsed
        }
    }

    /// The value of row `position`, parsed from its text (not kept).
    public func row(at position: Int) -> JSONValue {
        if let cached = values.withLock({ $0 }) { return cached[position] }
        return texts.value(at: position)
    }
}
