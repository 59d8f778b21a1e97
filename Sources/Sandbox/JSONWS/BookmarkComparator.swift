import ScreensJSON

/// The bookmarks entry order-by comparators the sandbox knows, from `bookmarks-api`'s
/// `com.liferay.bookmarks.util.comparator` package, by their class names.
///
/// As with articles (``ArticleComparator``), `+orderByComparator` gets the class's
/// no-argument constructor: descending (`this(false)`), whatever `orderByComparator.ascending`
/// says. `EntryModifiedDateComparator` is the one an incremental load sorts by.
struct BookmarkComparator: Sendable {
    /// The simple class names served, with the column each compares.
    enum Key: String, Sendable, CaseIterable {
        case modifiedDate = "EntryModifiedDateComparator"
        case createDate = "EntryCreateDateComparator"
        case name = "EntryNameComparator"
        case priority = "EntryPriorityComparator"
        case url = "EntryURLComparator"
    }

    let key: Key

    /// The comparator `+orderByComparator: className` makes, or a ClassNotFoundException.
    init(className: String) throws {
        key = try LiferayComparatorClass.key(className, Key.self)
    }

    /// `rows` newest (or greatest) first; equal keys by descending entry id.
    ///
    /// The generated benchmark folder is computed row by row and dated in index order, so
    /// the date comparators serve it reversed without materialising it; the others need the
    /// rows in memory and are refused there.
    func sorted(_ rows: RowList) throws -> RowList {
        switch rows {
        case .generated(var generated):
            guard key == .modifiedDate || key == .createDate else {
                throw PortalError.invalidRequest("the sandbox's generated folder sorts only by date, not by \(key.rawValue)")
            }
            generated.newestFirst = true
            return .generated(generated)
        case .stored(let stored):
            return .stored(stored.sorted { lhs, rhs in precedes(lhs, rhs) })
        }
    }

    private func precedes(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        switch key {
        case .modifiedDate, .createDate, .priority:
            let field = key == .modifiedDate ? "modifiedDate" : key == .createDate ? "createDate" : "priority"
            let left = lhs[field]?.int64Value ?? 0
            let right = rhs[field]?.int64Value ?? 0
            if left != right { return left > right }
        case .name, .url:
            let field = key == .name ? "name" : "url"
            let left = (lhs[field]?.stringValue ?? "").lowercased()
            let right = (rhs[field]?.stringValue ?? "").lowercased()
            if left != right { return left > right }
        }
        return (lhs["entryId"]?.int64Value ?? 0) > (rhs["entryId"]?.int64Value ?? 0)
    }
}

/// How JSON-WS resolves an order-by comparator's class name.
enum LiferayComparatorClass {
    /// The key of `className` among `Key`'s simple class names; a class outside
    /// `com.liferay.` or not known is JSON-WS's ClassNotFoundException.
    static func key<Key: RawRepresentable<String>>(_ className: String, _: Key.Type) throws -> Key {
        let simpleName = className.split(separator: ".").last.map(String.init) ?? className
        guard className.hasPrefix("com.liferay."), let key = Key(rawValue: simpleName) else {
            throw PortalError.classNotFound(className)
        }
        return key
    }
}
