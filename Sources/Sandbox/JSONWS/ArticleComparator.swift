/// The journal article order-by comparators the sandbox knows, by their Liferay class names.
///
/// JSON-WS instantiates `+obc` by class name with the no-argument constructor, which in every
/// one of these classes is `this(false)`: descending. An inner parameter such as
/// `obc.ascending` is set through a bean setter when the class has one; these comparators
/// keep `ascending` in a private final field, so the portal ignores it (and logs it at debug
/// level), and so does the sandbox. Any `com.liferay.` package is accepted
/// (`com.liferay.journal.util.comparator` in 7.x, `com.liferay.portlet.journal.util.comparator`
/// in 6.2).
struct ArticleComparator: Sendable {
    /// The simple class names served: title (default locale, case-insensitive), create date,
    /// modified date and article id; ties fall back to the article id.
    enum Key: String, Sendable, CaseIterable {
        case title = "ArticleTitleComparator"
        case createDate = "ArticleCreateDateComparator"
        case modifiedDate = "ArticleModifiedDateComparator"
        case articleId = "ArticleIDComparator"
    }

    let key: Key

    /// The comparator `+obc: className` makes, or a ClassNotFoundException as JSON-WS reports
    /// an unknown class.
    init(className: String) throws {
        self.key = try LiferayComparatorClass.key(className, Key.self)
    }

    /// Whether `lhs` comes before `rhs`: descending, as the no-argument constructor sorts;
    /// equal keys fall back to the article id, also descending (a database's order for ties
    /// is unspecified; the sandbox's is stable).
    func areInIncreasingOrder(_ lhs: Article, _ rhs: Article) -> Bool {
        increasing(rhs, lhs)
    }

    private func increasing(_ lhs: Article, _ rhs: Article) -> Bool {
        let leftId = lhs.row["articleId"]?.stringValue ?? ""
        let rightId = rhs.row["articleId"]?.stringValue ?? ""
        switch key {
        case .title:
            let left = lhs.title.text(for: nil).lowercased()
            let right = rhs.title.text(for: nil).lowercased()
            if left != right { return left < right }
        case .createDate, .modifiedDate:
            let field = key == .createDate ? "createDate" : "modifiedDate"
            let left = lhs.row[field]?.int64Value ?? 0
            let right = rhs.row[field]?.int64Value ?? 0
            if left != right { return left < right }
        case .articleId:
            break
        }
        return leftId < rightId
    }
}
