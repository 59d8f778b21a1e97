import ScreensBus

/// One web content row for JSON-WS: the values of `add-article`.
struct ArticleRow: JournaledRow, Hashable {
    var line: Int
    var groupId: Int64
    var folderId: Int64
    var title: String
    var description: String
    /// The structured content document (`<root><dynamic-element>...`).
    var contentXML: String
    /// The fields as name and text, the comparable form of `contentXML`.
    var fields: [ArticleXMLText.Field]
    /// The structure by key (7.2, 7.3's `ddmStructureKey`); empty on 7.4.
    var structureKey: String
    /// The structure by id (7.4's `ddmStructureId`); nil before 7.4.
    var structureId: Int64? = nil
    /// 7.4's `externalReferenceCode` of a new article; empty lets the portal use the articleId.
    var externalReferenceCode: String = ""
    var templateKey: String
    var urlTitle: String
    var key: String
    /// The key as journals of earlier versions wrote it.
    var legacyKey: String
    /// The row removes its article (`"op":"delete"`), found in its folder by key or `articleId`.
    var deletes = false
    /// The article a delete names by its `articleId`; nil finds it by the key fields.
    var articleId: String? = nil

    var content: String {
        if deletes { return "deleted" }
        // Each field is two values: a name holding "=" is never mistaken for another field.
        return WriteKey.encode([title, description, String(folderId), structureKey] + fields.flatMap { [$0.name, $0.data] })
    }

    var legacyContent: String {
        WriteKey.legacy([title, description, String(folderId), structureKey] + fields.map { "\($0.name)=\($0.data)" })
    }
}

/// `service: web-content` over JSON-WS: `/journal.journalarticle/add-article` and
/// `update-article` as the sink's `liferay-version` registers them:
///
/// - 7.2, 7.3: `add-article(groupId, folderId, titleMap, descriptionMap, content,
///   ddmStructureKey, ddmTemplateKey, serviceContext)` (Mobile SDK v72, v73);
/// - 7.4: `add-article(externalReferenceCode, groupId, folderId, titleMap, descriptionMap,
///   content, ddmStructureId, ddmTemplateKey, serviceContext)` (the portal's master
///   `JournalArticleService`), the structure by id (`content-structure-id` or a row's
///   `contentStructureId`);
/// - every version: `update-article(userId, groupId, folderId, articleId, version, titleMap,
///   descriptionMap, content, layoutUuid, serviceContext)`, and for a row with
///   `"op":"delete"`, `delete-article(groupId, articleId, articleURL, serviceContext)`.
///
/// 7.0 and 7.1 have only the long add-article forms, which the sink refuses to validate
/// (``PortalWriteSupport``). A folder's `get-articles(groupId, folderId, locale)` (7.2+)
/// is the lookup, and gives an update the `articleId`, `version` and author it needs.
/// `serviceContext` is never sent: the portal gives every command the request's own.
///
/// A row has the headless shape, so the same JSON lines go through either transport:
/// `title` (required), `description`, `contentFields` as `[{name, contentFieldValue:
/// {data}}]` (or `content`, the document itself), `folderId`, `ddmStructureKey` and
/// `ddmTemplateKey` (or the sink's `structure-key` and `template-key`). Text is written in
/// `en_US`, the sandbox's and a default portal's default locale.
struct WebContentWriteModel: JSONWSWriteModel {
    let spec: LiferaySinkSpec
    static let locale = "en_US"

    var serviceName: String { "web-content" }
    var idField: String { "resourcePrimKey" }
    var updatesNeedLookup: Bool { true }

    func row(_ value: JSONValue, line: Int) throws(RowRejection) -> ArticleRow {
        guard case .object = value else {
            throw RowRejection(message: "a row is a JSON object with title and contentFields, found \(value.typeName)")
        }
        if value["op"]?.stringValue == WriteRowOperation.delete.rawValue { return try deleteRow(value, line: line) }
        let title = try WriteRowParsing.text(value, "title", required: true, limit: StructuredContentRowValidator.titleLength)
        let description = try WriteRowParsing.text(value, "description", required: false, limit: 4000)
        let folderId = try folder(value)
        let byId = spec.portalVersion >= .v7_4
        let given = try WriteRowParsing.text(value, "ddmStructureKey", required: false, limit: 75)
        let structureKey = byId ? "" : given.isEmpty ? spec.structureKey ?? "" : given
        guard byId || !structureKey.isEmpty else {
            throw RowRejection(message: "missing 'ddmStructureKey' (and the sink names no structure-key)")
        }
        var structureId: Int64?
        if byId {
            if let number = try WriteRowParsing.positiveId(value, "contentStructureId", naming: "structure id") {
                structureId = number
            } else {
                structureId = spec.contentStructureId
            }
        }
        let externalReferenceCode =
            try byId ? WriteRowParsing.text(value, "externalReferenceCode", required: false, limit: StructuredContentRowValidator.externalReferenceCodeLength) : ""
        let template = try WriteRowParsing.text(value, "ddmTemplateKey", required: false, limit: 75)
        let fields: [ArticleXMLText.Field]
        if value["contentFields"] != nil {
            fields = try StructuredContentRowValidator.contentFields(value["contentFields"]).map { field in
                let data = field["contentFieldValue"]?["data"]
                return ArticleXMLText.Field(name: field["name"]?.stringValue ?? "", data: data?.stringValue ?? data?.jsonString ?? "")
            }
        } else {
            let document = try WriteRowParsing.text(value, "content", required: false, limit: WriteInputLines.maximumLineLength)
            do throws(XMLSyntaxError) {
                fields = try ArticleXMLText.fields(document)
            } catch {
                // Written as it reads, a document the portal could not read would lose its fields.
                throw RowRejection(message: "'content' is not a structured content document: \(error.message) at byte \(error.offset)")
            }
        }
        var row = ArticleRow(
            line: line, groupId: spec.groupId, folderId: folderId, title: title, description: description,
            contentXML: ArticleXMLText.document(fields, locale: Self.locale), fields: fields, structureKey: structureKey,
            templateKey: template.isEmpty ? spec.templateKey ?? "" : template,
            urlTitle: try WriteRowParsing.text(value, "friendlyUrlPath", required: false, limit: 255), key: "", legacyKey: "")
        row.structureId = structureId
        row.externalReferenceCode = externalReferenceCode
        row.key = keyOf(title: title, urlTitle: row.urlTitle)
        row.legacyKey = WriteKey.legacy(keyValues(title: title, urlTitle: row.urlTitle))
        return row
    }

    /// The sink's `folder-id`, else the row's `folderId`, else the site's root.
    private func folder(_ value: JSONValue) throws(RowRejection) -> Int64 {
        if let target = spec.folderId { return target }
        guard let given = value["folderId"], !given.isNull else { return 0 }
        guard let number = given.int64Value, number >= 0 else {
            throw RowRejection(message: "'folderId' must be a folder id (a whole number, 0 for the site's root), found \(given.jsonString.prefix(100))")
        }
        return number
    }

    /// `{"op":"delete", ...}`: the article of the row's folder with this `articleId`, else
    /// with the sink's key fields (`title`, `friendlyUrlPath`), the same key its create had.
    private func deleteRow(_ value: JSONValue, line: Int) throws(RowRejection) -> ArticleRow {
        let folderId = try folder(value)
        let articleId = try WriteRowParsing.text(value, "articleId", required: false, limit: 75)
        let title = articleId.isEmpty ? try WriteRowParsing.text(value, "title", required: spec.key.contains("title"), limit: StructuredContentRowValidator.titleLength) : ""
        let urlTitle = articleId.isEmpty ? try WriteRowParsing.text(value, "friendlyUrlPath", required: spec.key.contains("friendlyUrlPath"), limit: 255) : ""
        var row = ArticleRow(
            line: line, groupId: spec.groupId, folderId: folderId, title: title, description: "", contentXML: "", fields: [],
            structureKey: "", templateKey: "", urlTitle: urlTitle, key: "", legacyKey: "", deletes: true, articleId: articleId.isEmpty ? nil : articleId)
        row.key = articleId.isEmpty ? keyOf(title: title, urlTitle: urlTitle) : Self.articleIdKey(articleId)
        return row
    }

    /// The key a row naming its article by `articleId` has, and the lookup finds it by.
    private static func articleIdKey(_ articleId: String) -> String { WriteKey.encode(["articleId", articleId]) }

    /// A delete goes in a request of its own: the portal's refusal (NoSuchArticleException
    /// for an article deleted meanwhile) is then its own, never read as "done" by a lookup.
    func sendsAlone(_ row: ArticleRow) -> Bool { row.deletes }

    /// `delete-article(groupId, articleId, articleURL, serviceContext)`, the Mobile SDK's
    /// `JournalArticleService.deleteArticle` (v7 to v73): every version of the article; its
    /// `articleId` comes from the folder's `get-articles`.
    func removal(_ row: ArticleRow) -> EntryRemoval? {
        guard row.deletes else { return nil }
        return EntryRemoval(
            service: "/journal.journalarticle/delete-article", idParameter: nil,
            parameters: ["groupId": .int(row.groupId), "articleURL": ""], entryParameters: ["articleId"])
    }

    private func keyOf(title: String, urlTitle: String) -> String {
        WriteKey.encode(keyValues(title: title, urlTitle: urlTitle))
    }

    private func keyValues(title: String, urlTitle: String) -> [String] {
        spec.key.map { $0 == "title" ? title : urlTitle }
    }

    func addCommand(_ row: ArticleRow) -> JSONWSCommand {
        let byId = spec.portalVersion >= .v7_4
        var params = JSONObject(minimumCapacity: 8)
        if byId { params.appendUnchecked(key: "externalReferenceCode", value: .string(row.externalReferenceCode)) }
        params.appendUnchecked(key: "groupId", value: .int(row.groupId))
        params.appendUnchecked(key: "folderId", value: .int(row.folderId))
        params.appendUnchecked(key: "titleMap", value: [Self.locale: .string(row.title)])
        params.appendUnchecked(key: "descriptionMap", value: [Self.locale: .string(row.description)])
        params.appendUnchecked(key: "content", value: .string(row.contentXML))
        if byId {
            params.appendUnchecked(key: "ddmStructureId", value: .int(row.structureId ?? 0))
        } else {
            params.appendUnchecked(key: "ddmStructureKey", value: .string(row.structureKey))
        }
        params.appendUnchecked(key: "ddmTemplateKey", value: .string(row.templateKey))
        return ("/journal.journalarticle/add-article", params)
    }

    func updateCommand(_ row: ArticleRow, _ found: FoundEntry) -> JSONWSCommand {
        var params = JSONObject(minimumCapacity: 10)
        params.appendUnchecked(key: "userId", value: found.updateParameters["userId"] ?? .int(0))
        params.appendUnchecked(key: "groupId", value: .int(row.groupId))
        params.appendUnchecked(key: "folderId", value: .int(row.folderId))
        params.appendUnchecked(key: "articleId", value: found.updateParameters["articleId"] ?? .string(""))
        params.appendUnchecked(key: "version", value: found.updateParameters["version"] ?? .double(1))
        params.appendUnchecked(key: "titleMap", value: [Self.locale: .string(row.title)])
        params.appendUnchecked(key: "descriptionMap", value: [Self.locale: .string(row.description)])
        params.appendUnchecked(key: "content", value: .string(row.contentXML))
        params.appendUnchecked(key: "layoutUuid", value: .string(""))
        return ("/journal.journalarticle/update-article", params)
    }

    func id(ofResult result: JSONValue) -> Int64? { result["resourcePrimKey"]?.int64Value }

    /// One `get-articles` per folder of `rows`; the latest version of each article.
    func lookup(_ rows: [ArticleRow], transport: JSONWSBookmarkTransport) async throws(ScreensPipeError) -> [String: FoundEntry]? {
        var found: [String: FoundEntry] = [:]
        var folders: Set<Int64> = []
        for row in rows where folders.insert(row.folderId).inserted {
            let params: JSONObject = ["groupId": .int(row.groupId), "folderId": .int(row.folderId), "locale": .string(Self.locale)]
            let articles: [JSONValue]
            do throws(ScreensPipeError) {
                articles = try await transport.read(("/journal.journalarticle/get-articles", params), what: "the articles of folder \(row.folderId)").arrayValue ?? []
            } catch where error.isRefusedRead {
                continue
            }
            for article in articles {
                guard let id = article["resourcePrimKey"]?.int64Value else { continue }
                let title = ArticleXMLText.localized(article["title"]?.stringValue ?? "", locale: Self.locale)
                let stored = ArticleRow(
                    line: 0, groupId: row.groupId, folderId: article["folderId"]?.int64Value ?? row.folderId, title: title,
                    description: ArticleXMLText.localized(article["description"]?.stringValue ?? "", locale: Self.locale),
                    contentXML: "", fields: (try? ArticleXMLText.fields(article["content"]?.stringValue ?? "")) ?? [],
                    structureKey: spec.portalVersion >= .v7_4 ? "" : article["DDMStructureKey"]?.stringValue ?? "", templateKey: "",
                    urlTitle: article["urlTitle"]?.stringValue ?? "", key: "", legacyKey: "")
                let version = article["version"]?.doubleValue ?? 1
                let entry = FoundEntry(
                    id: id, content: stored.content,
                    updateParameters: [
                        "userId": article["userId"] ?? .int(0), "articleId": article["articleId"] ?? .string(""), "version": .double(version),
                    ])
                // Found by its key, and by its articleId for a delete that names it so.
                for key in [keyOf(title: title, urlTitle: stored.urlTitle), Self.articleIdKey(article["articleId"]?.stringValue ?? "")] {
                    // A list may hold several versions of an article: the latest one is updated.
                    if let earlier = found[key], earlier.id != id || (earlier.updateParameters["version"]?.doubleValue ?? 0) >= version { continue }
                    found[key] = entry
                }
            }
        }
        return found
    }

    func details(_ row: ArticleRow) -> JSONObject {
        guard row.deletes else { return ["title": .string(row.title), "folderId": .int(row.folderId)] }
        var details: JSONObject = ["op": "delete"]
        if let articleId = row.articleId { details["articleId"] = .string(articleId) } else { details["title"] = .string(row.title) }
        details["folderId"] = .int(row.folderId)
        return details
    }

    func inputText(_ row: ArticleRow) -> String {
        if row.deletes { return JSONValue.object(details(row)).jsonString }
        return JSONValue.object([
            "title": .string(row.title), "description": .string(row.description), "folderId": .int(row.folderId),
            "ddmStructureKey": .string(row.structureKey), "content": .string(row.contentXML),
        ]).jsonString
    }
}

/// The XML Liferay keeps article titles and structured content in: written here for
/// `add-article`; read back (from `get-articles`, or a row's `content`) with the
/// ``XMLReader`` and ``LocalizedValue`` the converter uses, so both read one grammar.
enum ArticleXMLText {
    struct Field: Sendable, Hashable {
        var name: String
        var data: String
    }

    /// A structured content document holding `fields` in `locale`.
    static func document(_ fields: [Field], locale: String) -> String {
        var xml = "<?xml version=\"1.0\"?>\n<root available-locales=\"\(locale)\" default-locale=\"\(locale)\">"
        for field in fields {
            xml += "<dynamic-element name=\"\(escaped(field.name))\" type=\"text\" index-type=\"keyword\"><dynamic-content language-id=\"\(locale)\">\(escaped(field.data))</dynamic-content></dynamic-element>"
        }
        return xml + "</root>"
    }

    /// The fields of a document in document order (nested ones after their parent), each
    /// with its first value (a document from a portal may hold several locales; the first
    /// is the default one in what Liferay writes). An empty text has none.
    static func fields(_ xml: String) throws(XMLSyntaxError) -> [Field] {
        guard !xml.isEmpty else { return [] }
        var fields: [Field] = []
        collect(of: try XMLReader.parse(xml), into: &fields)
        return fields
    }

    private static func collect(of parent: XMLElement, into fields: inout [Field]) {
        for element in parent.children where element.name == "dynamic-element" {
            if let name = element.attribute("name"), let content = element.children.first(where: { $0.name == "dynamic-content" }) {
                fields.append(Field(name: name, data: content.text))
            }
            collect(of: element, into: &fields)
        }
    }

    /// The text of a localized document in `locale` (or the closest locale it has); text
    /// that is not such a document is the text itself.
    static func localized(_ xml: String, locale: String) -> String {
        LocalizedValue.resolve(.string(xml), locale: locale).stringValue ?? xml
    }

    static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            default: result.append(character)
            }
        }
        return result
    }
}
