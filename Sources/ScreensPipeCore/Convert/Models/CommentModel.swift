/// `comment`: a comment from `/screens.screenscomment/get-comments`, as Liferay Screens'
/// `Comment` reads it (liferay/liferay-screens `ios/Framework/Core/Models/Comment.swift`).
///
/// | field | type | notes |
/// |---|---|---|
/// | commentId | int | required |
/// | body | string | the portal's HTML, as stored (Screens' `originalBody` source) |
/// | userId, userName | int, string | the author |
/// | createDate, modifiedDate | date | epoch ms to ISO 8601 |
/// | editable | bool | `updatePermission`; false when absent (Screens' `canEdit`) |
/// | deletable | bool | `deletePermission`; false when absent (Screens' `canDelete`) |
enum CommentModel {
    static let fields = FieldListModel(fields: [
        .model("commentId", .int, required: true),
        .model("body", .string),
        .model("userId", .int),
        .model("userName", .string),
        .model("createDate", .date),
        .model("modifiedDate", .date),
        permission("editable", from: "updatePermission"),
        permission("deletable", from: "deletePermission"),
    ])

    /// A permission flag: Screens reads a missing one as false (`as? Bool ?? false`).
    private static func permission(_ name: String, from key: String) -> CompiledField {
        CompiledField(
            name: name, source: key, path: FieldPath(components: [.key(key)]), type: .bool, defaultValue: .bool(false),
            whenMissing: .null)
    }
}
