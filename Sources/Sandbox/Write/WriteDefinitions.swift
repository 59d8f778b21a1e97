extension DefinitionSource {
    /// `addEntry`/`updateEntry` of BookmarksEntryLocalServiceImpl: an empty name becomes
    /// the URL, then `_validate(url)` throws EntryURLException unless `Validator.isUrl(url)`.
    public static let bookmarksEntryValidation = DefinitionSource(
        repository: "liferay/liferay-portal",
        path: "modules/apps/bookmarks/bookmarks-service/src/main/java/com/liferay/bookmarks/service/impl/BookmarksEntryLocalServiceImpl.java",
        commit: "761d323a68cf10a815bd35576cf8a57b27464c89")
}

extension DefinitionSource {
    /// The portal's master `JournalArticleService` (7.4): `addArticle` takes the
    /// `externalReferenceCode` first and the structure by id (`ddmStructureId`);
    /// `updateArticle(userId, groupId, folderId, articleId, version, titleMap,
    /// descriptionMap, content, layoutUuid, serviceContext)` is unchanged.
    public static let journalArticleServiceMaster = DefinitionSource(
        repository: "liferay/liferay-portal",
        path: "modules/apps/journal/journal-api/src/main/java/com/liferay/journal/service/JournalArticleService.java",
        commit: "eb65aa60d5ea46acec0e8da2df58f8cdc38d5ce7")
}

extension JSONWSSignatures {
    /// The bookmark write methods, the same in every 7.x catalogue (and the ones Add
    /// Bookmark Screenlet's interactor calls).
    static let writeSignatures: [ServiceSignature] = [
        ServiceSignature(
            "/bookmarks.bookmarksentry/add-entry",
            [
                .init("groupId", "long"), .init("folderId", "long"), .init("name", "String"), .init("url", "String"),
                .init("description", "String"), .init("serviceContext", "com.liferay.portal.kernel.service.ServiceContext"),
            ],
            versions: .v7_0 ... .v7_4,
            sources: DefinitionSource.mobileSDK(["v7", "v71", "v72", "v73"], "bookmarksentry/BookmarksEntryService")),
        ServiceSignature(
            "/bookmarks.bookmarksentry/update-entry",
            [
                .init("entryId", "long"), .init("groupId", "long"), .init("folderId", "long"), .init("name", "String"),
                .init("url", "String"), .init("description", "String"),
                .init("serviceContext", "com.liferay.portal.kernel.service.ServiceContext"),
            ],
            versions: .v7_0 ... .v7_4,
            sources: DefinitionSource.mobileSDK(["v7", "v71", "v72", "v73"], "bookmarksentry/BookmarksEntryService")),
        ServiceSignature(
            "/bookmarks.bookmarksentry/delete-entry",
            [.init("entryId", "long")],
            versions: .v7_0 ... .v7_4,
            sources: DefinitionSource.mobileSDK(["v7", "v71", "v72", "v73"], "bookmarksentry/BookmarksEntryService")),
        ServiceSignature(
            "/journal.journalarticle/add-article",
            [
                .init("groupId", "long"), .init("folderId", "long"), .init("titleMap", "java.util.Map<java.util.Locale, java.lang.String>"),
                .init("descriptionMap", "java.util.Map<java.util.Locale, java.lang.String>"), .init("content", "String"),
                .init("ddmStructureKey", "String"), .init("ddmTemplateKey", "String"),
                .init("serviceContext", "com.liferay.portal.kernel.service.ServiceContext"),
            ],
            versions: .v7_2 ... .v7_3,
            sources: DefinitionSource.mobileSDK(["v72", "v73"], "journalarticle/JournalArticleService")),
        ServiceSignature(
            "/journal.journalarticle/add-article",
            [
                .init("externalReferenceCode", "String"), .init("groupId", "long"), .init("folderId", "long"),
                .init("titleMap", "java.util.Map<java.util.Locale, java.lang.String>"),
                .init("descriptionMap", "java.util.Map<java.util.Locale, java.lang.String>"), .init("content", "String"),
                .init("ddmStructureId", "long"), .init("ddmTemplateKey", "String"),
                .init("serviceContext", "com.liferay.portal.kernel.service.ServiceContext"),
            ],
            versions: .v7_4 ... .v7_4,
            sources: [.journalArticleServiceMaster]),
        ServiceSignature(
            "/journal.journalarticle/update-article",
            [
                .init("userId", "long"), .init("groupId", "long"), .init("folderId", "long"), .init("articleId", "String"),
                .init("version", "double"), .init("titleMap", "java.util.Map<java.util.Locale, java.lang.String>"),
                .init("descriptionMap", "java.util.Map<java.util.Locale, java.lang.String>"), .init("content", "String"),
                .init("layoutUuid", "String"), .init("serviceContext", "com.liferay.portal.kernel.service.ServiceContext"),
            ],
            versions: .v7_0 ... .v7_4,
            sources: DefinitionSource.mobileSDK(["v71", "v72", "v73"], "journalarticle/JournalArticleService")
                + [.mobileSDKiOS70("journalarticle", "LRJournalArticleService"), .journalArticleServiceMaster]),
        ServiceSignature(
            "/journal.journalarticle/delete-article",
            [
                .init("groupId", "long"), .init("articleId", "String"), .init("articleURL", "String"),
                .init("serviceContext", "com.liferay.portal.kernel.service.ServiceContext"),
            ],
            versions: .v7_0 ... .v7_4,
            sources: DefinitionSource.mobileSDK(["v7", "v71", "v72", "v73"], "journalarticle/JournalArticleService")),
        ServiceSignature(
            "/ddl.ddlrecord/add-record",
            [
                .init("groupId", "long"), .init("recordSetId", "long"), .init("displayIndex", "int"),
                .init("fieldsMap", "java.util.Map<java.lang.String, java.io.Serializable>"),
                .init("serviceContext", "com.liferay.portal.kernel.service.ServiceContext"),
            ],
            versions: .v7_0 ... .v7_0,
            sources: DefinitionSource.mobileSDK(["v7"], "ddlrecord/DDLRecordService")),
        ServiceSignature(
            "/ddl.ddlrecord/update-record",
            [
                .init("recordId", "long"), .init("displayIndex", "int"),
                .init("fieldsMap", "java.util.Map<java.lang.String, java.io.Serializable>"), .init("mergeFields", "boolean"),
                .init("serviceContext", "com.liferay.portal.kernel.service.ServiceContext"),
            ],
            versions: .v7_0 ... .v7_2,
            sources: DefinitionSource.mobileSDK(["v7", "v71", "v72"], "ddlrecord/DDLRecordService")),
        ServiceSignature(
            "/ddl.ddlrecord/delete-record",
            [.init("recordId", "long")],
            versions: .v7_0 ... .v7_4,
            sources: DefinitionSource.mobileSDK(["v7", "v71", "v72", "v73"], "ddlrecord/DDLRecordService")),
    ]
}
