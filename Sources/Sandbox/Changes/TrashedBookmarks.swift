import ScreensJSON

/// The bookmarks `POST /_sandbox/changes` deleted, as Liferay's recycle bin keeps them: the
/// row with `status` 8 (WorkflowConstants.STATUS_IN_TRASH) and the deletion's time as its
/// `modifiedDate`.
///
/// Liferay's ordinary lists leave trashed rows out, so a deletion is invisible to a client
/// that only reads them. `GET /rest/bookmarks-with-trash/{style}` serves the live rows and
/// then these tombstones, so an incremental run (`?modified-since=`) sees every deletion
/// newer than its cursor and a sink can delete the key.
struct TrashedBookmarks: Sendable {
    /// The REST dataset that includes the tombstones.
    static let dataset = "bookmarks-with-trash"
    /// Liferay's `WorkflowConstants.STATUS_IN_TRASH`.
    static let inTrashStatus: Int64 = 8

    /// Oldest deletion first.
    private(set) var rows: [JSONValue] = []

    /// Records `deleted` rows as tombstones stamped `deletedAt` (epoch milliseconds).
    mutating func record(_ deleted: [JSONValue], deletedAt: Int64) {
        for row in deleted {
            guard case .object(var object) = row else { continue }
            object["status"] = .int(Self.inTrashStatus)
            object["modifiedDate"] = .int(deletedAt)
            rows.append(.object(object))
        }
    }
}
