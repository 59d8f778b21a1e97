import ScreensJSON

/// `?modified-since=` of the sandbox's REST collections: the rows whose `modifiedDate` is at
/// or after the given time (ISO 8601 or epoch milliseconds), so an incremental pipeline can
/// push its cursor through a query template. At or after, not after: rows that share the
/// cursor's second but were written later must still come.
enum ModifiedSince {
    static func filter(_ rows: RowList, since text: String) -> Result<RowList, SandboxError> {
        guard let since = ISODate.parse(text) ?? Int64(text) else {
            return .failure(SandboxError("modified-since must be an ISO 8601 date or epoch milliseconds, found '\(text.prefix(80))'"))
        }
        guard case .stored(let stored) = rows else {
            return .failure(SandboxError("modified-since is served on stored collections only (bookmarks)"))
        }
        return .success(.stored(stored.filter { ($0["modifiedDate"]?.int64Value ?? .min) >= since }))
    }
}
