import ScreensBus

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Changes one bookmark behind a client's back, as another user of the portal would: a new
/// name and a new `modifiedDate`, so a client's pending update of it conflicts.
///
/// `POST /_sandbox/edit-entry?entryId=N&name=TEXT` answers the entry as changed, or 404.
enum SandboxEntryEdit {
    static let path = "/_sandbox/edit-entry"

    static func respond(to request: SandboxRequest, portal: Portal) -> SandboxResponse {
        guard request.method == "POST" else {
            var response = SandboxResponse.text(405, "Method Not Allowed\n")
            response.headers.append(("Allow", "POST"))
            return response
        }
        guard let text = request.query["entryId"], let entryId = Int64(text) else {
            return .json(400, ["error": "'entryId' must be an entry's id"])
        }
        guard let row = edit(portal, entryId: entryId, name: request.query["name"] ?? "Edited on the portal") else {
            return .json(404, ["error": .string("no bookmark has the entryId \(entryId)")])
        }
        return .json(200, row)
    }

    static func edit(_ portal: Portal, entryId: Int64, name: String) -> JSONValue? {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return portal.entries.rename(entryId: entryId, to: name, now: Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000)
    }
}

extension SandboxServer {
    /// Renames a bookmark with a new `modifiedDate`, as `POST /_sandbox/edit-entry` does;
    /// the entry as changed, or nil when none has `entryId`.
    @discardableResult
    public func editBookmark(entryId: Int64, name: String) -> JSONValue? {
        SandboxEntryEdit.edit(state.router.changes.portal, entryId: entryId, name: name)
    }
}
