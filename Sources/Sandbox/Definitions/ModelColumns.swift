/// The columns of the portal models the sandbox serves through JSON-WS, as their
/// `service.xml` declares them, and the JSON type each takes when JSON-WS serializes a model:
/// `long`, `int` and `double` as numbers (64-bit ids exact), `Date` as epoch milliseconds
/// (or null), `boolean` as true/false, `String` as a string.
public struct ModelDefinition: Sendable {
    /// A column and its service.xml type.
    public struct Column: Sendable, Hashable {
        /// The column name as JSON-WS writes it (`DDMStructureKey`, `statusDate`).
        public var name: String
        /// The service.xml type.
        public var type: ColumnType

        /// A column `name` of `type`.
        public init(_ name: String, _ type: ColumnType) {
            self.name = name
            self.type = type
        }
    }

    /// The service.xml types the served models use.
    public enum ColumnType: String, Sendable {
        /// `long`, `int`, `double` and `boolean` as in service.xml; `String` and `Date` keep its capitals.
        case long, int, double, boolean, string = "String", date = "Date"
    }

    /// `BookmarksEntry`.
    public var entity: String
    /// The columns in service.xml order.
    public var columns: [Column]
    /// The service.xml they were read from.
    public var source: DefinitionSource

    /// A model definition.
    public init(entity: String, columns: [Column], source: DefinitionSource) {
        self.entity = entity
        self.columns = columns
        self.source = source
    }
}

/// The models of the JSON-WS services the sandbox serves. The bookmarks, journal and DDL
/// columns are the 7.0 `service.xml`s; the asset entry's are the 7.4 one (`classTypeId`,
/// `listable` and `layoutUuid` are 7.x additions to the 6.x columns).
public enum ModelDefinitions {
    private static let centralTest = "liferay/liferay-central-test-2"

    /// Every model the sandbox serves through JSON-WS.
    public static let all = [bookmarksEntry, bookmarksFolder, journalArticle, ddlRecord, assetEntry]

    /// BookmarksEntry (7.0, with `resourceBlockId`).
    public static let bookmarksEntry = ModelDefinition(
        entity: "BookmarksEntry",
        columns: [
            .init("uuid", .string), .init("entryId", .long), .init("groupId", .long), .init("companyId", .long),
            .init("userId", .long), .init("userName", .string), .init("createDate", .date),
            .init("modifiedDate", .date), .init("resourceBlockId", .long), .init("folderId", .long),
            .init("treePath", .string), .init("name", .string), .init("url", .string), .init("description", .string),
            .init("visits", .int), .init("priority", .int), .init("lastPublishDate", .date), .init("status", .int),
            .init("statusByUserId", .long), .init("statusByUserName", .string), .init("statusDate", .date),
        ],
        source: DefinitionSource(
            repository: centralTest, path: "modules/apps/bookmarks/bookmarks-service/service.xml",
            commit: "32ff2b879e09ebbd8f2c52afeb2d57185521e8ff"))

    /// BookmarksFolder, from the same service.xml.
    public static let bookmarksFolder = ModelDefinition(
        entity: "BookmarksFolder",
        columns: [
            .init("uuid", .string), .init("folderId", .long), .init("groupId", .long), .init("companyId", .long),
            .init("userId", .long), .init("userName", .string), .init("createDate", .date),
            .init("modifiedDate", .date), .init("resourceBlockId", .long), .init("parentFolderId", .long),
            .init("treePath", .string), .init("name", .string), .init("description", .string),
            .init("lastPublishDate", .date), .init("status", .int), .init("statusByUserId", .long),
            .init("statusByUserName", .string), .init("statusDate", .date),
        ],
        source: bookmarksEntry.source)

    /// JournalArticle (7.0: `title` and `description` as localized XML).
    public static let journalArticle = ModelDefinition(
        entity: "JournalArticle",
        columns: [
            .init("uuid", .string), .init("id", .long), .init("resourcePrimKey", .long), .init("groupId", .long),
            .init("companyId", .long), .init("userId", .long), .init("userName", .string),
            .init("createDate", .date), .init("modifiedDate", .date), .init("folderId", .long),
            .init("classNameId", .long), .init("classPK", .long), .init("treePath", .string),
            .init("articleId", .string), .init("version", .double), .init("title", .string),
            .init("urlTitle", .string), .init("description", .string), .init("content", .string),
            .init("DDMStructureKey", .string), .init("DDMTemplateKey", .string), .init("layoutUuid", .string),
            .init("displayDate", .date), .init("expirationDate", .date), .init("reviewDate", .date),
            .init("indexable", .boolean), .init("smallImage", .boolean), .init("smallImageId", .long),
            .init("smallImageURL", .string), .init("status", .int), .init("statusByUserId", .long),
            .init("statusByUserName", .string), .init("statusDate", .date),
        ],
        source: DefinitionSource(
            repository: centralTest, path: "modules/apps/journal/journal-service/service.xml",
            commit: "06a5f33f7b46344fda176f823ea428b23df745af"))

    /// The `modelAttributes` of a Screens DDL record are the DDLRecord columns.
    public static let ddlRecord = ModelDefinition(
        entity: "DDLRecord",
        columns: [
            .init("uuid", .string), .init("recordId", .long), .init("groupId", .long), .init("companyId", .long),
            .init("userId", .long), .init("userName", .string), .init("versionUserId", .long),
            .init("versionUserName", .string), .init("createDate", .date), .init("modifiedDate", .date),
            .init("DDMStorageId", .long), .init("recordSetId", .long), .init("version", .string),
            .init("displayIndex", .int), .init("lastPublishDate", .date),
        ],
        source: DefinitionSource(
            repository: centralTest, path: "modules/apps/dynamic-data-lists/dynamic-data-lists-service/service.xml",
            commit: "1df3e17ea97b911ef5415f7e9f291ed13a4c3cff"))

    /// Screens serializes the asset entry and replaces `title`, `description` and `summary`
    /// with localized maps, so those three are not checked as strings.
    public static let assetEntry = ModelDefinition(
        entity: "AssetEntry",
        columns: [
            .init("entryId", .long), .init("groupId", .long), .init("companyId", .long), .init("userId", .long),
            .init("userName", .string), .init("createDate", .date), .init("modifiedDate", .date),
            .init("classNameId", .long), .init("classPK", .long), .init("classUuid", .string),
            .init("classTypeId", .long), .init("listable", .boolean), .init("visible", .boolean),
            .init("startDate", .date), .init("endDate", .date), .init("publishDate", .date),
            .init("expirationDate", .date), .init("mimeType", .string), .init("url", .string),
            .init("layoutUuid", .string), .init("height", .int), .init("width", .int), .init("priority", .double),
        ],
        source: DefinitionSource(
            repository: "liferay/liferay-portal", path: "portal-impl/src/com/liferay/portlet/asset/service.xml",
            commit: "6c5c750f3445c9b276ba1ef6c383969cdc02a039"))
}
