import ScreensBus

/// `image`: a document library file entry from `/dlapp/get-file-entries`, as Liferay
/// Screens' Image Gallery reads it (liferay/liferay-screens `ios/Framework/Core/Models/ImageEntry.swift`).
///
/// | field | type | notes |
/// |---|---|---|
/// | fileEntryId | int | required |
/// | title, description, mimeType | string | |
/// | size | int | bytes |
/// | version | string | |
/// | groupId, folderId | int | |
/// | uuid | string | |
/// | createDate, modifiedDate | date | epoch ms to ISO 8601 |
/// | imageUrl | string | `{server}/documents/{groupId}/{folderId}/{title}/{uuid}`, the title percent-encoded as Screens encodes it; null without groupId, folderId or uuid |
/// | thumbnailUrl | string | `{imageUrl}?version={version}&imageThumbnail=1`; null without a version |
enum ImageModel {
    static let fields = FieldListModel(fields: [
        .model("fileEntryId", .int, required: true),
        .model("title", .string),
        .model("description", .string),
        .model("mimeType", .string),
        .model("size", .int),
        .model("version", .string),
        .model("groupId", .int),
        .model("folderId", .int),
        .model("uuid", .string),
        .model("createDate", .date),
        .model("modifiedDate", .date),
    ])

    static func convert(_ row: JSONObject, locale: String?, serverURL: String?) throws(ScreensPipeError) -> JSONObject {
        var output = try fields.convert(.object(row), locale: locale)
        let imageURL = Self.imageURL(row, serverURL: serverURL)
        output.appendUnchecked(key: "imageUrl", value: imageURL.map(JSONValue.string) ?? .null)
        let thumbnail = imageURL.flatMap { url in Self.text(row["version"]).map { "\(url)?version=\($0)&imageThumbnail=1" } }
        output.appendUnchecked(key: "thumbnailUrl", value: thumbnail.map(JSONValue.string) ?? .null)
        return output
    }

    /// `ImageEntry.createImageUrl()`: the server, then `/documents/{groupId}/{folderId}/`,
    /// the title percent-encoded with `.urlHostAllowed`, then `/{uuid}`. Values are written
    /// as the row has them (Screens interpolates them as they came).
    static func imageURL(_ row: JSONObject, serverURL: String?) -> String? {
        guard let groupId = text(row["groupId"]), let folderId = text(row["folderId"]), let uuid = text(row["uuid"]) else {
            return nil
        }
        let title = encodedTitle(text(row["title"]) ?? "")
        return "\(serverURL ?? "")/documents/\(groupId)/\(folderId)/\(title)/\(uuid)"
    }

    /// A scalar as text: a string as it is, a number by its text; nil for null, missing or a container.
    private static func text(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let text)?: text
        case .int(let number)?: String(number)
        case .number(let text)?: text
        case .bool(let flag)?: String(flag)
        default: nil
        }
    }

    /// Foundation's `CharacterSet.urlHostAllowed`: the characters RFC 3986 allows in a host
    /// (unreserved, sub-delims, `:`, `[` and `]`); every other UTF-8 byte is `%XX`.
    static func encodedTitle(_ title: String) -> String {
        URLText.encode(title, alsoKeeping: subDelimitersAndHostBrackets)
    }

    /// What `urlHostAllowed` keeps beyond RFC 3986's unreserved characters.
    private static let subDelimitersAndHostBrackets = Set("!$&'()*+,;=:[]".utf8)
}
