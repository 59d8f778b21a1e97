/// `web-content`: a `JournalArticle` from `/journal.journalarticle/get-articles`.
///
/// Title and description are localized XML; content is localized XML too, and for
/// structured content (`dynamic-element`s) it becomes an object `{fieldName: text}` in
/// the locale (see ``LocalizedValue``).
enum WebContentModel {
    static let fields = FieldListModel(fields: [
        .model("articleId", .string, required: true),
        .model("resourcePrimKey", .int, whenMissing: .omit),
        .model("id", .int, whenMissing: .omit),
        .model("groupId", .int),
        .model("folderId", .int),
        .model("title", .string, localized: true),
        .model("description", .string, localized: true),
        .model("content", nil, localized: true),
        // The portal spells the column `DDMStructureKey` (JournalArticle in service.xml).
        .model("ddmStructureKey", from: "DDMStructureKey", .string, whenMissing: .omit),
        .model("createDate", .date),
        .model("modifiedDate", .date),
    ])
}
