/// The JSON-WS signatures of every service the sandbox serves, and of the services next to
/// them that a client may reach for, per portal version, each with the files it was read from.
///
/// Portal services come from the Mobile SDK's service classes, which are generated from a
/// running portal's JSON-WS catalogue (`services-v7` is 7.0, `v71`, `v72`, `v73`; the 7.0
/// journal service only exists in the iOS SDK). No SDK was generated for 7.4, so 7.4 uses
/// the 7.3 catalogue. The `screens.*` services come from Liferay Screens' client for its
/// portal plugin, the same on every 7.x portal.
///
/// This table is the one source of truth: the sandbox answers with it, and the fidelity
/// tests check every request the client builds against it.
public enum JSONWSSignatures {
    /// Every signature, in no particular order.
    public static let all: [ServiceSignature] = [
        ServiceSignature(
            "/assetentry/get-entries",
            [.init("entryQuery", "com.liferay.asset.kernel.service.persistence.AssetEntryQuery")],
            versions: .v7_0 ... .v7_4,
            sources: DefinitionSource.mobileSDK(["v7", "v71", "v72", "v73"], "assetentry/AssetEntryService")),
        ServiceSignature(
            "/assetentry/get-entries-count",
            [.init("entryQuery", "com.liferay.asset.kernel.service.persistence.AssetEntryQuery")],
            versions: .v7_0 ... .v7_4,
            sources: DefinitionSource.mobileSDK(["v7", "v71", "v72", "v73"], "assetentry/AssetEntryService")),
        ServiceSignature(
            "/bookmarks.bookmarksentry/get-entries",
            [.init("groupId", "long"), .init("folderId", "long"), .init("start", "int"), .init("end", "int"), .init("orderByComparator", "com.liferay.portal.kernel.util.OrderByComparator<com.liferay.bookmarks.model.BookmarksEntry>")],
            versions: .v7_0 ... .v7_4,
            sources: DefinitionSource.mobileSDK(["v7", "v71", "v72", "v73"], "bookmarksentry/BookmarksEntryService")),
        ServiceSignature(
            "/bookmarks.bookmarksentry/get-entries",
            [.init("groupId", "long"), .init("folderId", "long"), .init("start", "int"), .init("end", "int")],
            versions: .v7_0 ... .v7_4,
            sources: DefinitionSource.mobileSDK(["v7", "v71", "v72", "v73"], "bookmarksentry/BookmarksEntryService")),
        ServiceSignature(
            "/bookmarks.bookmarksentry/get-entries-count",
            [.init("groupId", "long"), .init("folderId", "long")],
            versions: .v7_0 ... .v7_4,
            sources: DefinitionSource.mobileSDK(["v7", "v71", "v72", "v73"], "bookmarksentry/BookmarksEntryService")),
        ServiceSignature(
            "/bookmarks.bookmarksentry/get-entries-count",
            [.init("groupId", "long"), .init("folderId", "long"), .init("status", "int")],
            versions: .v7_0 ... .v7_4,
            sources: DefinitionSource.mobileSDK(["v7", "v71", "v72", "v73"], "bookmarksentry/BookmarksEntryService")),
        ServiceSignature(
            "/bookmarks.bookmarksfolder/get-folders",
            [.init("groupId", "long"), .init("parentFolderId", "long"), .init("start", "int"), .init("end", "int")],
            versions: .v7_0 ... .v7_4,
            sources: DefinitionSource.mobileSDK(["v7", "v71", "v72", "v73"], "bookmarksfolder/BookmarksFolderService")),
        ServiceSignature(
            "/bookmarks.bookmarksfolder/get-folders",
            [.init("groupId", "long"), .init("parentFolderId", "long"), .init("status", "int"), .init("start", "int"), .init("end", "int")],
            versions: .v7_0 ... .v7_4,
            sources: DefinitionSource.mobileSDK(["v7", "v71", "v72", "v73"], "bookmarksfolder/BookmarksFolderService")),
        ServiceSignature(
            "/bookmarks.bookmarksfolder/get-folders",
            [.init("groupId", "long")],
            versions: .v7_0 ... .v7_4,
            sources: DefinitionSource.mobileSDK(["v7", "v71", "v72", "v73"], "bookmarksfolder/BookmarksFolderService")),
        ServiceSignature(
            "/bookmarks.bookmarksfolder/get-folders",
            [.init("groupId", "long"), .init("parentFolderId", "long")],
            versions: .v7_0 ... .v7_4,
            sources: DefinitionSource.mobileSDK(["v7", "v71", "v72", "v73"], "bookmarksfolder/BookmarksFolderService")),
        ServiceSignature(
            "/bookmarks.bookmarksfolder/get-folders-count",
            [.init("groupId", "long"), .init("parentFolderId", "long")],
            versions: .v7_0 ... .v7_4,
            sources: DefinitionSource.mobileSDK(["v7", "v71", "v72", "v73"], "bookmarksfolder/BookmarksFolderService")),
        ServiceSignature(
            "/bookmarks.bookmarksfolder/get-folders-count",
            [.init("groupId", "long"), .init("parentFolderId", "long"), .init("status", "int")],
            versions: .v7_0 ... .v7_4,
            sources: DefinitionSource.mobileSDK(["v7", "v71", "v72", "v73"], "bookmarksfolder/BookmarksFolderService")),
        ServiceSignature(
            "/classname/fetch-by-class-name-id",
            [.init("classNameId", "long")],
            versions: .v7_1 ... .v7_4,
            sources: DefinitionSource.mobileSDK(["v71", "v72", "v73"], "classname/ClassNameService")),
        ServiceSignature(
            "/classname/fetch-class-name",
            [.init("value", "String")],
            versions: .v7_0 ... .v7_4,
            sources: DefinitionSource.mobileSDK(["v7", "v71", "v72", "v73"], "classname/ClassNameService")),
        ServiceSignature(
            "/group/get-user-sites-groups",
            [],
            versions: .v7_0 ... .v7_4,
            sources: DefinitionSource.mobileSDK(["v7", "v71", "v72", "v73"], "group/GroupService")),
        ServiceSignature(
            "/group/get-user-sites-groups",
            [.init("classNames", "String[]"), .init("max", "int")],
            versions: .v7_0 ... .v7_4,
            sources: DefinitionSource.mobileSDK(["v7", "v71", "v72", "v73"], "group/GroupService")),
        ServiceSignature(
            "/group/get-user-sites-groups",
            [.init("userId", "long"), .init("classNames", "String[]"), .init("max", "int")],
            versions: .v7_0 ... .v7_4,
            sources: DefinitionSource.mobileSDK(["v7", "v71", "v72", "v73"], "group/GroupService")),
        ServiceSignature(
            "/group/get-user-sites-groups",
            [.init("userId", "long"), .init("start", "int"), .init("end", "int")],
            versions: .v7_3 ... .v7_4,
            sources: DefinitionSource.mobileSDK(["v73"], "group/GroupService")),
        ServiceSignature(
            "/group/get-user-sites-groups-count",
            [],
            versions: .v7_0 ... .v7_4,
            sources: DefinitionSource.mobileSDK(["v7", "v71", "v72", "v73"], "group/GroupService")),
        ServiceSignature(
            "/journal.journalarticle/get-articles",
            [.init("groupId", "long"), .init("folderId", "long"), .init("locale", "Locale"), .init("start", "int"), .init("end", "int"), .init("obc", "com.liferay.portal.kernel.util.OrderByComparator<com.liferay.journal.model.JournalArticle>")],
            versions: .v7_2 ... .v7_2,
            sources: DefinitionSource.mobileSDK(["v72"], "journalarticle/JournalArticleService")),
        ServiceSignature(
            "/journal.journalarticle/get-articles",
            [.init("groupId", "long"), .init("folderId", "long"), .init("locale", "Locale"), .init("start", "int"), .init("end", "int"), .init("orderByComparator", "com.liferay.portal.kernel.util.OrderByComparator<com.liferay.journal.model.JournalArticle>")],
            versions: .v7_3 ... .v7_4,
            sources: DefinitionSource.mobileSDK(["v73"], "journalarticle/JournalArticleService")),
        ServiceSignature(
            "/journal.journalarticle/get-articles",
            [.init("groupId", "long"), .init("folderId", "long"), .init("start", "int"), .init("end", "int"), .init("obc", "com.liferay.portal.kernel.util.OrderByComparator<com.liferay.journal.model.JournalArticle>")],
            versions: .v7_0 ... .v7_2,
            sources: DefinitionSource.mobileSDK(["v71", "v72"], "journalarticle/JournalArticleService") + [.mobileSDKiOS70("journalarticle", "LRJournalArticleService")]),
        ServiceSignature(
            "/journal.journalarticle/get-articles",
            [.init("groupId", "long"), .init("folderId", "long")],
            versions: .v7_0 ... .v7_2,
            sources: DefinitionSource.mobileSDK(["v71", "v72"], "journalarticle/JournalArticleService") + [.mobileSDKiOS70("journalarticle", "LRJournalArticleService")]),
        ServiceSignature(
            "/journal.journalarticle/get-articles",
            [.init("groupId", "long"), .init("folderId", "long"), .init("locale", "Locale")],
            versions: .v7_2 ... .v7_4,
            sources: DefinitionSource.mobileSDK(["v72", "v73"], "journalarticle/JournalArticleService")),
        ServiceSignature(
            "/journal.journalarticle/get-articles-count",
            [.init("groupId", "long"), .init("folderId", "long")],
            versions: .v7_0 ... .v7_4,
            sources: DefinitionSource.mobileSDK(["v71", "v72", "v73"], "journalarticle/JournalArticleService") + [.mobileSDKiOS70("journalarticle", "LRJournalArticleService")]),
        ServiceSignature(
            "/journal.journalarticle/get-articles-count",
            [.init("groupId", "long"), .init("folderId", "long"), .init("status", "int")],
            versions: .v7_0 ... .v7_4,
            sources: DefinitionSource.mobileSDK(["v71", "v72", "v73"], "journalarticle/JournalArticleService") + [.mobileSDKiOS70("journalarticle", "LRJournalArticleService")]),
        ServiceSignature(
            "/screens.screensassetentry/get-asset-entries",
            [.init("assetEntryQuery", "com.liferay.asset.kernel.service.persistence.AssetEntryQuery"), .init("locale", "Locale")],
            versions: .v7_0 ... .v7_4,
            sources: [.screens70("ScreensassetentryService")]),
        ServiceSignature(
            "/screens.screensassetentry/get-asset-entries",
            [.init("companyId", "long"), .init("groupId", "long"), .init("portletItemName", "String"), .init("locale", "Locale"), .init("max", "int")],
            versions: .v7_0 ... .v7_4,
            sources: [.screens70("ScreensassetentryService")]),
        ServiceSignature(
            "/screens.screensassetentry/get-asset-entry",
            [.init("className", "String"), .init("classPK", "long"), .init("locale", "Locale")],
            versions: .v7_0 ... .v7_4,
            sources: [.screens70("ScreensassetentryService")]),
        ServiceSignature(
            "/screens.screensassetentry/get-asset-entry",
            [.init("entryId", "long"), .init("locale", "Locale")],
            versions: .v7_0 ... .v7_4,
            sources: [.screens70("ScreensassetentryService")]),
        ServiceSignature(
            "/screens.screensddlrecord/get-ddl-record",
            [.init("ddlRecordId", "long"), .init("locale", "Locale")],
            versions: .v7_0 ... .v7_4,
            sources: [.screens70("ScreensddlrecordService")]),
        ServiceSignature(
            "/screens.screensddlrecord/get-ddl-records",
            [.init("ddlRecordSetId", "long"), .init("locale", "Locale"), .init("start", "int"), .init("end", "int"), .init("obc", "com.liferay.portal.kernel.util.OrderByComparator<com.liferay.dynamic.data.lists.model.DDLRecord>")],
            versions: .v7_0 ... .v7_4,
            sources: [.screens70("ScreensddlrecordService")]),
        ServiceSignature(
            "/screens.screensddlrecord/get-ddl-records",
            [.init("ddlRecordSetId", "long"), .init("userId", "long"), .init("locale", "Locale"), .init("start", "int"), .init("end", "int"), .init("obc", "com.liferay.portal.kernel.util.OrderByComparator<com.liferay.dynamic.data.lists.model.DDLRecord>")],
            versions: .v7_0 ... .v7_4,
            sources: [.screens70("ScreensddlrecordService")]),
        ServiceSignature(
            "/screens.screensddlrecord/get-ddl-records-count",
            [.init("ddlRecordSetId", "long")],
            versions: .v7_0 ... .v7_4,
            sources: [.screens70("ScreensddlrecordService")]),
        ServiceSignature(
            "/screens.screensddlrecord/get-ddl-records-count",
            [.init("userId", "long"), .init("ddlRecordSetId", "long")],
            versions: .v7_0 ... .v7_4,
            sources: [.screens70("ScreensddlrecordService")]),
        ServiceSignature(
            "/screens.screensjournalarticle/get-journal-article-content",
            [.init("groupId", "long"), .init("articleId", "String"), .init("ddmTemplateId", "long"), .init("locale", "Locale")],
            versions: .v7_0 ... .v7_4,
            sources: [.screens70("ScreensjournalarticleService")]),
        ServiceSignature(
            "/screens.screensjournalarticle/get-journal-article-content",
            [.init("classPK", "long"), .init("ddmTemplateId", "long"), .init("locale", "Locale")],
            versions: .v7_0 ... .v7_4,
            sources: [.screens70("ScreensjournalarticleService")]),
        ServiceSignature(
            "/screens.screensjournalarticle/get-journal-article-content",
            [.init("classPK", "long"), .init("locale", "Locale")],
            versions: .v7_0 ... .v7_4,
            sources: [.screens70("ScreensjournalarticleService")]),
    ] + writeSignatures + commentSignatures + DLAppService.signatures

    /// The signatures a `version` portal has.
    public static func signatures(for version: LiferayVersion) -> [ServiceSignature] {
        all.filter { $0.versions.contains(version) }
    }
}
