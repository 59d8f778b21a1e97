import ScreensBus

/// The rows of a page, as ``FetchedPage`` and ``CachedPage`` hold them: values, or texts
/// whose values are parsed on first read, with each row's text when it was kept.
///
/// The two pages share this so they agree on one rule: the texts and the values always
/// describe the same rows. Setting the values drops texts that were the old rows'; setting
/// other texts on rows kept as texts first makes their values, which are the page's rows.
struct PageRows: Sendable, Equatable {
    private var values: [JSONValue]
    /// Set when the rows are kept as texts and parsed only when read.
    private(set) var lazyValues: LazyRowValues?
    private var keptTexts: JSONElementTexts?
    /// The texts' ``JSONElementTexts/contentDigest``, when it was computed ahead
    /// (``PageSequenceGuard/prepare(_:)``); dropped whenever the rows or the texts change.
    private(set) var textsDigest: UInt64?

    /// Rows as values, with their texts when the source kept them.
    init(values: [JSONValue], texts: JSONElementTexts? = nil) {
        self.values = values
        keptTexts = texts
    }

    /// Rows kept as `texts` (checked JSON, one value each), parsed when read.
    init(texts: JSONElementTexts) {
        values = []
        lazyValues = LazyRowValues(texts: texts)
        keptTexts = texts
    }

    /// The rows' values; rows kept as texts are parsed on first read, once for every copy.
    var rows: [JSONValue] {
        get { lazyValues?.rows ?? values }
        set {
            values = newValue
            lazyValues = nil
            keptTexts = nil
            textsDigest = nil
        }
    }

    /// Each row's text, when kept.
    var texts: JSONElementTexts? {
        get { keptTexts }
        set {
            if let lazy = lazyValues, newValue != lazy.texts {
                values = lazy.rows
                lazyValues = nil
            }
            keptTexts = newValue
            textsDigest = nil
        }
    }

    /// Computes the texts' digest now (see ``PageSequenceGuard/prepare(_:)``).
    mutating func precomputeTextsDigest() {
        textsDigest = keptTexts?.contentDigest
    }

    /// How many rows; never parses.
    var count: Int { lazyValues?.count ?? values.count }

    static func == (lhs: PageRows, rhs: PageRows) -> Bool {
        lhs.texts == rhs.texts && lhs.rows == rhs.rows
    }
}
