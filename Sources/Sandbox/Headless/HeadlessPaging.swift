import ScreensJSON

/// The paging every headless collection shares: 1-based `page` and `pageSize`, and the
/// REST Builder page around the items (portal-vulcan's `Page`).
enum HeadlessPaging {
    /// A positive integer query parameter, or a 400 naming it.
    static func positive(_ query: QueryString, _ name: String, default defaultValue: Int) throws -> Int {
        do throws(InvalidQueryParameter) {
            let value = try query.integer(name) ?? defaultValue
            guard value > 0 else { throw InvalidQueryParameter(name: name, value: String(value)) }
            return value
        } catch {
            throw HeadlessError.badRequest("Invalid value \"\(error.value)\" for query parameter \(error.name)")
        }
    }

    /// The indices of page `page` of a `count`-item list; empty past the end or on overflow.
    static func range(page: Int, pageSize: Int, count: Int) -> Range<Int> {
        let (first, overflow) = (page - 1).multipliedReportingOverflow(by: pageSize)
        return overflow || first >= count ? 0..<0 : first..<min(count, first + pageSize)
    }

    /// `{actions, facets, items, lastPage, page, pageSize, totalCount}`; `lastPage` is 1 for an empty list.
    static func body(items: [JSONValue], page: Int, pageSize: Int, totalCount: Int) -> JSONValue {
        [
            "actions": [:],
            "facets": [],
            "items": .array(items),
            "lastPage": .int(Int64(max(1, (totalCount + pageSize - 1) / pageSize))),
            "page": .int(Int64(page)),
            "pageSize": .int(Int64(pageSize)),
            "totalCount": .int(Int64(totalCount)),
        ]
    }
}
