import ScreensBus

/// The numbers of a headless `Page` (portal-vulcan's `Page`: `items`, `lastPage`, `page`,
/// `pageSize`, `totalCount`) and the rules that tie them together.
///
/// Liferay computes `lastPage` from the others: 1 for an empty list, else
/// `ceil(totalCount / pageSize)` (`Page.getLastPage()` in
/// modules/apps/portal-vulcan/portal-vulcan-api). So `totalCount` ends a list when it is
/// there, `lastPage` when it is not, and a page whose numbers disagree is a broken answer:
/// trusting either one could lose rows or ask for pages that do not exist.
struct HeadlessPageNumbers: Sendable, Equatable {
    var totalCount: Int?
    var lastPage: Int?
    /// The page size the numbers are computed with: the response's, else the one asked for.
    var pageSize: Int

    init(totalCount: Int? = nil, lastPage: Int? = nil, pageSize: Int) {
        self.totalCount = totalCount
        self.lastPage = lastPage
        self.pageSize = pageSize
    }

    /// Reads the numbers of `body`; a number that is there but not a non-negative integer
    /// (or, for `lastPage` and `pageSize`, below 1) is an error naming it.
    init(_ body: JSONValue, pageSize asked: Int) throws(ScreensPipeError) {
        totalCount = try Self.integer(body, "totalCount", atLeast: 0)
        lastPage = try Self.integer(body, "lastPage", atLeast: 1)
        pageSize = try Self.integer(body, "pageSize", atLeast: 1) ?? asked
    }

    /// `lastPage` as Liferay computes it from `totalCount`.
    static func lastPage(totalCount: Int, pageSize: Int) -> Int {
        guard totalCount > 0, pageSize > 0 else { return 1 }
        return totalCount / pageSize + (totalCount % pageSize == 0 ? 0 : 1)
    }

    /// Checks that `lastPage` agrees with `totalCount` when both are there. (A server that
    /// answers another `page` than asked is caught by the repeated-page guard, which names
    /// both pages.)
    func check() throws(ScreensPipeError) {
        if let totalCount, let lastPage {
            let expected = Self.lastPage(totalCount: totalCount, pageSize: pageSize)
            if lastPage != expected {
                throw ScreensPipeError(
                    .malformedResponse,
                    "lastPage is \(lastPage) but totalCount \(totalCount) in pages of \(pageSize) makes \(expected); the server's page numbers disagree, so the end of the list is unknown")
            }
        }
    }

    private static func integer(_ body: JSONValue, _ name: String, atLeast minimum: Int) throws(ScreensPipeError) -> Int? {
        guard let value = body[name], !value.isNull else { return nil }
        guard let exact = value.int64Value, let number = Int(exactly: exact), number >= minimum else {
            throw ScreensPipeError(
                .malformedResponse, "\(name) must be an integer of at least \(minimum), found \(sanitizedServerText(value.jsonString, limit: 40))")
        }
        return number
    }
}
