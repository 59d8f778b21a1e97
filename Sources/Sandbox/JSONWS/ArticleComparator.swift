/// The journal article order-by comparators the sandbox knows, by their Liferay class names.
///
/// JSON-WS instantiates `+obc` by class name; any `com.liferay.` package is accepted
/// (`com.liferay.journal.util.comparator` in 7.x, `com.liferay.portlet.journal.util.comparator`
/// in 6.2). The sandbox sorts ascending unless `obc.ascending` is false.
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
    let ascending: Bool

    /// The comparator for `className`, or a ClassNotFoundException as JSON-WS reports an unknown class.
    init(className: String, ascending: Bool) throws {
        let simpleName = className.split(separator: ".").last.map(String.init) ?? className
        guard className.hasPrefix("com.liferay."), let key = Key(rawValue: simpleName) else {
            throw PortalError.classNotFound(className)
        }
        self.key = key
        self.ascending = ascending
    }

    func areInIncreasingOrder(_ lhs: Article, _ rhs: Article) -> Bool {
        ascending ? increasing(lhs, rhs) : increasing(rhs, lhs)
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
