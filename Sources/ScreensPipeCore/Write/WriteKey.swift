import ScreensBus

/// How a row's key fields, and the values compared to tell a changed row, become one text.
///
/// The text is the JSON array of the values (`["https://example.com/1","20201"]`): two
/// different lists of values are never the same text, whatever characters they hold. The
/// journal's first form joined the values with U+001F, so `["a\u{1F}b", "c"]` and
/// `["a", "b\u{1F}c"]` were one key (one row overwrote the other's entry) and one content (a
/// real change was judged unchanged); ``legacy(_:)`` keeps that form only to read journals
/// an earlier version wrote.
enum WriteKey {
    /// The text of `values`, distinct for every distinct list.
    static func encode(_ values: [String]) -> String {
        JSONValue.array(values.map { .string($0) }).jsonString
    }

    /// The form of journals written before keys were JSON arrays (values joined by U+001F).
    static func legacy(_ values: [String]) -> String {
        values.joined(separator: "\u{1F}")
    }
}
