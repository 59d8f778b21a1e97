/// `asset`: a Screens asset entry from `/screens.screensassetentry/get-asset-entries`.
///
/// Title, description and summary are localized (map or XML form). The nested `object`
/// (the entry's own model, such as a journal article) is kept as it came.
enum AssetModel {
    static let fields = FieldListModel(fields: [
        .model("entryId", .int, required: true),
        .model("classNameId", .int),
        .model("className", .string),
        .model("classPK", .int),
        .model("title", .string, localized: true),
        .model("description", .string, localized: true),
        .model("summary", .string, localized: true),
        .model("url", .string, whenMissing: .omit),
        .model("createDate", .date),
        .model("modifiedDate", .date, whenMissing: .omit),
        .model("object", nil, whenMissing: .omit),
    ])
}
