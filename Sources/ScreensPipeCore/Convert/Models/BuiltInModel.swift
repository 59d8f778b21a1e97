import ScreensBus

/// A built-in model: the `convertResult` of one of the Screens list screenlets.
///
/// Bookmarks, web content, assets and comments are fixed field lists; DDL records are
/// shaped by their record set, so they are flattened instead; images add the URLs Screens
/// builds from each entry.
enum BuiltInModel: Sendable {
    case fields(FieldListModel)
    case ddlRecord
    case image

    init(_ kind: ModelKind) {
        switch kind {
        case .bookmark: self = .fields(BookmarkModel.fields)
        case .webContent: self = .fields(WebContentModel.fields)
        case .asset: self = .fields(AssetModel.fields)
        case .ddlRecord: self = .ddlRecord
        case .comment: self = .fields(CommentModel.fields)
        case .image: self = .image
        }
    }

    /// The model row of a raw portal object; `serverURL` is the portal's base URL, which
    /// the image model's links start with.
    func convert(_ row: JSONObject, locale: String?, serverURL: String? = nil) throws(ScreensPipeError) -> JSONObject {
        switch self {
        case .fields(let model): try model.convert(.object(row), locale: locale)
        case .ddlRecord: try DDLRecordModel.convert(row, locale: locale)
        case .image: try ImageModel.convert(row, locale: locale, serverURL: serverURL)
        }
    }
}
