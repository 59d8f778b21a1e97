/// What each Liferay Screens list screenlet checks before it sends anything (its
/// connector's `validateData`), and where its site goes, keyed by the portal services the
/// screenlet calls. Facts from liferay/liferay-screens (commit c2e407f2):
///
/// - Asset List (`ios/Framework/Core/Asset/ListScreenlet/AssetListPageLiferayConnector.swift`):
///   `undefined-group` without a group, `undefined-classname` when neither a class name id
///   nor a portlet item name is given; `groupId` 0 is the server context's
///   (`AssetListPageLoadInteractor.swift`).
/// - Web Content List (`WebContentListPageLoadInteractor.swift`): `groupId` 0 is the server
///   context's; `folderId` 0 is the root folder.
/// - DDL List (`ios/Framework/Core/DDL/ListScreenlet/DDLListPageLiferayConnector.swift`):
///   `undefined-recordset` without a record set.
/// - Comment List (`ios/Framework/Core/Comment/List/Connectors/CommentListPageLiferayConnector.swift`):
///   `undefined-classPK` when `classPK <= 0`, `undefined-className` when the class is empty;
///   the comment service takes no site.
/// - Image Gallery (`ios/Framework/Core/ImageGallery/Connectors/ImageGalleryPageLiferayConnector.swift`):
///   `undefined-repositoryid`, `undefined-folderid` (the screenlet's -1 defaults).
/// - Bookmark List (`ios/Samples/Bookmark/BookmarkListScreenlet/Connector/BookmarkListPageLiferayConnector.swift`):
///   "Undefined folderId". The sample refuses folder 0 as well; here 0 is the root folder,
///   which `BookmarksEntryService.getEntries` serves like any other.
struct ScreenletRule: Sendable {
    /// Where a service takes its site.
    enum GroupPlace: Sendable {
        /// A plain `long groupId` parameter.
        case parameter(String)
        /// `groupIds` of the asset entry query object parameter of this name.
        case entryQuery(String)
    }

    /// A parameter the service cannot do without.
    struct Required: Sendable {
        /// The name in the service's signature.
        var name: String
        /// Screenlet attribute names a developer may write instead (renamed to ``name``).
        var aliases: [String] = []
        /// Whether 0 is as good as missing (no record set has id 0).
        var zeroIsMissing = false
        /// Whether an empty text is as good as missing (a class name).
        var emptyIsMissing = false
        /// What the screenlet says when it is missing, and how to give it.
        var hint: String
    }

    /// The screenlet, for messages.
    var screenlet: String
    /// The services this rule applies to (rows and count commands).
    var services: Set<String>
    /// Where the site goes; nil for services without one.
    var group: GroupPlace?
    /// The parameters the screenlet's `validateData` insists on.
    var required: [Required] = []
    /// The asset entry query parameter whose `classNameIds` the rows need (Asset List's
    /// `undefined-classname`), when the rule is an asset list's.
    var classesIn: String?

    static let all: [ScreenletRule] = [
        ScreenletRule(
            screenlet: "Bookmark List Screenlet",
            services: ["/bookmarks.bookmarksentry/get-entries", "/bookmarks.bookmarksentry/get-entries-count"],
            group: .parameter("groupId"),
            required: [Required(name: "folderId", hint: "the bookmark folder; 0 is the site's root folder")]),
        ScreenletRule(
            screenlet: "Web Content List Screenlet",
            services: ["/journal.journalarticle/get-articles", "/journal.journalarticle/get-articles-count"],
            group: .parameter("groupId"),
            required: [Required(name: "folderId", hint: "the web content folder; 0 is the site's root folder")]),
        ScreenletRule(
            screenlet: "DDL List Screenlet",
            services: ["/screens.screensddlrecord/get-ddl-records", "/screens.screensddlrecord/get-ddl-records-count"],
            required: [
                Required(
                    name: "ddlRecordSetId", aliases: ["recordSetId"], zeroIsMissing: true,
                    hint: "the dynamic data list's record set id (undefined-recordset)")
            ]),
        ScreenletRule(
            screenlet: "Comment List Screenlet",
            services: ["/screens.screenscomment/get-comments", "/screens.screenscomment/get-comments-count"],
            required: [
                Required(
                    name: "className", emptyIsMissing: true,
                    hint: "the commented asset's class, e.g. com.liferay.journal.model.JournalArticle (undefined-className)"),
                Required(
                    name: "classPK", zeroIsMissing: true,
                    hint: "the commented asset's primary key, e.g. an article's resourcePrimKey (undefined-classPK)"),
            ]),
        ScreenletRule(
            screenlet: "Image Gallery Screenlet",
            services: ["/dlapp/get-file-entries", "/dlapp/get-file-entries-count"],
            required: [
                Required(name: "repositoryId", hint: "the site's repository, the site's id (undefined-repositoryid)"),
                Required(name: "folderId", hint: "the document folder; 0 is the repository's root (undefined-folderid)"),
            ]),
        ScreenletRule(
            screenlet: "Asset List Screenlet",
            services: ["/screens.screensassetentry/get-asset-entries"],
            group: .entryQuery("assetEntryQuery"), classesIn: "assetEntryQuery"),
        ScreenletRule(
            screenlet: "Asset List Screenlet",
            services: ["/assetentry/get-entries", "/assetentry/get-entries-count"],
            group: .entryQuery("entryQuery"), classesIn: "entryQuery"),
    ]

    /// The rule for `service`, if a screenlet calls it.
    static func rule(for service: String) -> ScreenletRule? {
        all.first { $0.services.contains(service) }
    }
}

/// The asset classes a developer names in `classes:`: the short names of Liferay Screens'
/// `AssetClassNameKey_*` constants and the Asset List Screenlet reference, with the class
/// names of Liferay 7.1 and later. A name with a dot is taken as a fully qualified class
/// name as it is (older portals name some classes differently, e.g. 7.0's
/// `com.liferay.blogs.kernel.model.BlogsEntry`).
enum AssetClassNames {
    static let byShortName: [String: String] = [
        "BlogsEntry": "com.liferay.blogs.model.BlogsEntry",
        "BookmarksEntry": "com.liferay.bookmarks.model.BookmarksEntry",
        "BookmarksFolder": "com.liferay.bookmarks.model.BookmarksFolder",
        "CalendarBooking": "com.liferay.calendar.model.CalendarBooking",
        "DDLRecord": "com.liferay.dynamic.data.lists.model.DDLRecord",
        "DDLRecordSet": "com.liferay.dynamic.data.lists.model.DDLRecordSet",
        "DLFileEntry": "com.liferay.document.library.kernel.model.DLFileEntry",
        "DLFolder": "com.liferay.document.library.kernel.model.DLFolder",
        "Group": "com.liferay.portal.kernel.model.Group",
        "JournalArticle": "com.liferay.journal.model.JournalArticle",
        "JournalFolder": "com.liferay.journal.model.JournalFolder",
        "Layout": "com.liferay.portal.kernel.model.Layout",
        "MBMessage": "com.liferay.message.boards.model.MBMessage",
        "MBThread": "com.liferay.message.boards.model.MBThread",
        "Organization": "com.liferay.portal.kernel.model.Organization",
        "User": "com.liferay.portal.kernel.model.User",
        "UserGroup": "com.liferay.portal.kernel.model.UserGroup",
        "WikiNode": "com.liferay.wiki.model.WikiNode",
        "WikiPage": "com.liferay.wiki.model.WikiPage",
    ]

    /// The fully qualified name of `name`, or nil when it is neither a known short name nor
    /// a qualified name.
    static func qualified(_ name: String) -> String? {
        if let known = byShortName[name] { return known }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        let isQualified = parts.count > 1 && parts.allSatisfy { part in
            guard let first = part.first, first.isLetter || first == "_" else { return false }
            return part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "$") }
        }
        return isQualified ? name : nil
    }
}
