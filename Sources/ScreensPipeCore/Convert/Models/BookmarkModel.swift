/// `bookmark`: a `BookmarksEntry` from `/bookmarks.bookmarksentry/get-entries`.
///
/// | field | type | notes |
/// |---|---|---|
/// | entryId | int | required |
/// | name, url, description | string | url required |
/// | folderId, groupId | int | |
/// | createDate, modifiedDate | date | epoch ms to ISO 8601 |
/// | userName | string | only when present |
enum BookmarkModel {
    static let fields = FieldListModel(fields: [
        .model("entryId", .int, required: true),
        .model("name", .string),
        .model("url", .string, required: true),
        .model("description", .string),
        .model("folderId", .int),
        .model("groupId", .int),
        .model("createDate", .date),
        .model("modifiedDate", .date),
        .model("userName", .string, whenMissing: .omit),
    ])
}
