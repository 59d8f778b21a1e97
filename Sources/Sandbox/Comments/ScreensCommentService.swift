import ScreensJSON

/// `/screens.screenscomment/*`: Liferay Screens' comment service, as `ScreensCommentServiceImpl`
/// (carmenbianca/liferay-portal@102b5f9b, `modules/apps/screens/screens-service/src/main/java/com/liferay/screens/service/impl/ScreensCommentServiceImpl.java`)
/// answers: the asset is looked up first (`NoSuchEntryException`), then the user's view
/// permission on its discussion, then the comments in thread order.
enum ScreensCommentService {
    static let actions: [String: JSONWSServices.Action] = [
        "/screens.screenscomment/get-comments": { portal, params, account in
            let comments = try portal.comments(
                className: try requiredClassName(params), classPK: try params.long("classPK"), for: account)
            let rows = slice(comments, start: try params.long("start"), end: try params.long("end"))
            return .array(rows.map { $0.screensJSON(for: account) })
        },
        "/screens.screenscomment/get-comments-count": { portal, params, account in
            .int(Int64(try portal.comments(className: try requiredClassName(params), classPK: try params.long("classPK"), for: account).count))
        },
    ]

    /// `className` is a `String`: a missing one is null, which the asset lookup cannot find.
    private static func requiredClassName(_ params: ServiceParameters) throws -> String {
        guard let className = try params.string("className") else { throw PortalError.missingParameter("className") }
        return className
    }

    /// `getComments`' own paging: `start` -1 (`QueryUtil.ALL_POS`) is 0; `end` -1 is every
    /// comment from `start`; otherwise `end - start` comments from `start`, so an `end` at or
    /// before `start` answers none. (The thread iterator starts at `start`; the sandbox reads
    /// a negative `start` other than -1 as 0 as well.)
    static func slice(_ comments: [DiscussionComment], start: Int64, end: Int64) -> ArraySlice<DiscussionComment> {
        let first = Int(clamping: max(0, start))
        guard first < comments.count else { return [] }
        if end == -1 { return comments[first...] }
        let (wanted, overflow) = end.subtractingReportingOverflow(max(0, start))
        guard !overflow, wanted > 0 else { return [] }
        return comments[first..<(first + Int(clamping: min(wanted, Int64(comments.count - first))))]
    }
}
