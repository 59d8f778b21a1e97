import ScreensJSON

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// `/bookmarks.bookmarksentry/add-entry`, `update-entry` and `delete-entry`, with the checks
/// BookmarksEntryLocalServiceImpl makes before it stores anything.
///
/// The order follows the portal: the site (NoSuchGroupException, then VIEW permission),
/// the folder (NoSuchFolderException unless it is the root, `0`), then `validate(url)`,
/// which throws EntryURLException unless `Validator.isUrl(url)`: text with a `:` that
/// `new java.net.URL(url)` accepts, that is a protocol Java knows. An empty name becomes
/// the URL, as `addEntry` does. Columns hold at most the model hints' lengths (name 255,
/// url 4000, description 4000 characters in the portal's service.xml); longer values fail
/// in the database, which the portal reports as a SystemException.
///
/// Sources: ``DefinitionSource/bookmarksEntryValidation`` and the Mobile SDK's
/// `BookmarksEntryService` for the signatures (``JSONWSSignatures``).
enum BookmarksEntryWriteService {
    static let actions: [String: JSONWSServices.Action] = [
        "/bookmarks.bookmarksentry/add-entry": { portal, params, account in
            let values = try checkedValues(portal, params, account)
            return portal.entries.add(values, account: account, now: currentMilliseconds())
        },
        "/bookmarks.bookmarksentry/update-entry": { portal, params, account in
            let entryId = try params.long("entryId")
            guard let groupId = portal.entries.groupId(ofEntry: entryId) else { throw PortalError.noSuchBookmarksEntry(entryId) }
            try portal.checkGroup(groupId, for: account)
            let values = try checkedValues(portal, params, account)
            guard let row = portal.entries.update(entryId: entryId, values, account: account, now: currentMilliseconds()) else {
                throw PortalError.noSuchBookmarksEntry(entryId)
            }
            return row
        },
        // BookmarksEntryServiceImpl.deleteEntry: the DELETE permission check reads the entry
        // first (NoSuchEntryException for an unknown id), then the entry is gone; answers nothing.
        "/bookmarks.bookmarksentry/delete-entry": { portal, params, account in
            let entryId = try params.long("entryId")
            guard let groupId = portal.entries.groupId(ofEntry: entryId) else { throw PortalError.noSuchBookmarksEntry(entryId) }
            try portal.checkGroup(groupId, for: account)
            guard portal.entries.delete(entryId: entryId) else { throw PortalError.noSuchBookmarksEntry(entryId) }
            return .null
        },
    ]

    /// Protocols `java.net.URL` has a handler for out of the box.
    static let javaURLProtocols: Set<String> = ["http", "https", "ftp", "file", "jar", "mailto"]

    /// The column lengths of BookmarksEntry (portlet-model-hints.xml).
    static let nameLength = 255
    static let urlLength = 4000
    static let descriptionLength = 4000

    private static func checkedValues(_ portal: Portal, _ params: ServiceParameters, _ account: Account) throws -> BookmarkValues {
        let groupId = try params.long("groupId")
        let folderId = try params.long("folderId")
        try portal.checkGroup(groupId, for: account)
        if folderId != 0 {
            guard let folder = portal.data.bookmarkFolders[folderId], folder.groupId == groupId else {
                throw PortalError.noSuchBookmarksFolder(folderId)
            }
        }
        let url = try params.string("url") ?? ""
        guard isURL(url) else { throw PortalError.entryURL }
        var name = try params.string("name") ?? ""
        if name.isEmpty { name = url }
        let description = try params.string("description") ?? ""
        for (column, value, limit) in [("name", name, nameLength), ("url", url, urlLength), ("description", description, descriptionLength)]
        where value.count > limit {
            throw PortalError.dataTooLong(column: column)
        }
        return BookmarkValues(groupId: groupId, folderId: folderId, name: name, url: url, description: description)
    }

    /// `Validator.isUrl`: not blank, holds a `:`, and its protocol (the text before the first
    /// `:`, lowercased) is one `java.net.URL` knows.
    static func isURL(_ text: String) -> Bool {
        guard !text.allSatisfy(\.isWhitespace), let colon = text.firstIndex(of: ":") else { return false }
        let scheme = text[..<colon].lowercased()
        return javaURLProtocols.contains(scheme)
    }

    private static func currentMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }
}

extension PortalError {
    /// `validate(url)` failed; the portal's exception carries no message.
    static let entryURL = PortalError(status: 500, type: "com.liferay.bookmarks.exception.EntryURLException", message: "")

    static func noSuchBookmarksEntry(_ entryId: Int64) -> PortalError {
        PortalError(
            status: 404, type: "com.liferay.bookmarks.exception.NoSuchEntryException",
            message: "No BookmarksEntry exists with the primary key \(entryId)")
    }

    /// A value longer than its column: the database refuses the row.
    static func dataTooLong(column: String) -> PortalError {
        PortalError(
            status: 500, type: "com.liferay.portal.kernel.exception.SystemException",
            message: "Data truncation: Data too long for column '\(column)'")
    }
}
