import ScreensJSON

/// `/journal.journalarticle/add-article`, `update-article` and `delete-article` over
/// JSON-WS, the short overloads of the Mobile SDK's `JournalArticleService` (v72, v73) and
/// the portal's master:
///
/// - `add-article(groupId, folderId, titleMap, descriptionMap, content, ddmStructureKey,
///   ddmTemplateKey, serviceContext)` (7.2, 7.3), or 7.4's `add-article(externalReferenceCode,
///   groupId, folderId, titleMap, descriptionMap, content, ddmStructureId, ddmTemplateKey,
///   serviceContext)`: a new article, its articleId generated;
/// - `update-article(userId, groupId, folderId, articleId, version, titleMap,
///   descriptionMap, content, layoutUuid, serviceContext)`: a new version of an article,
///   refused unless `version` is the latest (ArticleVersionException), as the portal does;
/// - `delete-article(groupId, articleId, articleURL, serviceContext)` (every 7.x): every
///   version of the article, NoSuchArticleException for an unknown one.
///
/// The checks follow JournalArticleLocalServiceImpl's `validate`: the site, the folder
/// (NoSuchFolderException unless `0`), a title in the default locale
/// (ArticleTitleException), the structure (NoSuchStructureException), and content that is
/// a `<root>` document (ArticleContentException). Maps arrive as JSON objects or as JSON
/// text, as JSON-WS accepts both.
enum JournalArticleWriteService {
    static let actions: [String: JSONWSServices.Action] = [
        "/journal.journalarticle/add-article": { portal, params, account in
            let groupId = try params.long("groupId")
            try portal.checkGroup(groupId, for: account)
            // 7.2 and 7.3 name the structure by key, 7.4 by id (with an external reference code).
            let structureKey: String
            if params.values["ddmStructureId"] != nil {
                let id = try params.long("ddmStructureId")
                guard let key = portal.data.structureIds.first(where: { $0.value == id })?.key else {
                    throw PortalError.noSuchStructure(id: id)
                }
                structureKey = key
            } else {
                structureKey = try params.string("ddmStructureKey") ?? ""
            }
            var checked = try checkedValues(portal, params, groupId: groupId, structureKey: structureKey)
            if let code = try params.string("externalReferenceCode"), !code.isEmpty { checked.externalReferenceCode = code }
            let values = checked
            let article = portal.written.add(now: StructuredContentWrites.currentMilliseconds()) { key, date in
                Article.written(key: key, values: values, account: account, created: date, modified: date, uuid: nil)
            }
            return article.row
        },
        // JournalArticleServiceImpl.deleteArticle(groupId, articleId, articleURL,
        // serviceContext): the DELETE permission check reads the latest article first
        // (NoSuchArticleException when there is none), then every version is gone; void.
        "/journal.journalarticle/delete-article": { portal, params, account in
            let groupId = try params.long("groupId")
            let articleId = try params.string("articleId") ?? ""
            guard let existing = portal.allArticles.first(where: { $0.groupId == groupId && $0.row["articleId"]?.stringValue == articleId }) else {
                throw PortalError(
                    status: 404, type: "com.liferay.journal.exception.NoSuchArticleException",
                    message: "No JournalArticle exists with the key {groupId=\(groupId), articleId=\(articleId)}")
            }
            try portal.checkGroup(groupId, for: account)
            portal.written.delete(existing.resourcePrimKey)
            return .null
        },
        "/journal.journalarticle/update-article": { portal, params, account in
            let groupId = try params.long("groupId")
            try portal.checkGroup(groupId, for: account)
            let articleId = try params.string("articleId") ?? ""
            let version = try params.double("version")
            guard let existing = portal.allArticles.first(where: { $0.groupId == groupId && $0.row["articleId"]?.stringValue == articleId }) else {
                throw PortalError.noSuchArticle(groupId: groupId, articleId: articleId, version: version)
            }
            let latest = existing.row["version"]?.doubleValue ?? 1.0
            guard abs(latest - version) < 0.000_1 else { throw PortalError.articleVersion(version: version, latest: latest) }
            var values = try checkedValues(
                portal, params, groupId: groupId, structureKey: existing.row["DDMStructureKey"]?.stringValue ?? "")
            values.articleId = articleId
            values.externalReferenceCode = existing.externalReferenceCode
            values.templateKey = existing.row["DDMTemplateKey"]?.stringValue ?? ""
            values.urlTitle = existing.row["urlTitle"]?.stringValue ?? values.urlTitle
            let key = existing.resourcePrimKey
            let article = portal.written.replace(key, now: StructuredContentWrites.currentMilliseconds()) { date in
                var next = Article.written(
                    key: key, values: values, account: account, created: existing.row["createDate"]?.int64Value ?? date,
                    modified: date, uuid: existing.row["uuid"]?.stringValue)
                next.setVersion(((latest + 0.1) * 10).rounded() / 10)
                return next
            }
            return article.row
        },
    ]

    private static func checkedValues(_ portal: Portal, _ params: ServiceParameters, groupId: Int64, structureKey: String) throws -> ArticleValues {
        let folderId = try params.long("folderId", default: 0)
        if folderId != 0 {
            guard let folder = portal.data.journalFolders[folderId], folder.groupId == groupId else {
                throw PortalError.noSuchJournalFolder(folderId)
            }
        }
        let titles = try localizedMap(params, "titleMap")
        guard let title = titles["en_US"] ?? titles.values.first, !title.allSatisfy(\.isWhitespace) else {
            throw PortalError.articleTitle
        }
        guard title.count <= StructuredContentWrites.titleLength else { throw PortalError.dataTooLong(column: "title") }
        guard portal.data.structureIds[structureKey] != nil else { throw PortalError.noSuchStructure(groupId: groupId, key: structureKey) }
        let content = try params.string("content") ?? ""
        guard content.contains("<root") else { throw PortalError.articleContent }
        let fields = LocalizedXML.parseContent(content).map { (name: $0.name, data: $0.values.text(for: "en_US")) }
        let descriptions = try localizedMap(params, "descriptionMap")
        return ArticleValues(
            groupId: groupId, folderId: folderId, title: title, description: descriptions["en_US"] ?? descriptions.values.first ?? "",
            fields: fields, structureKey: structureKey, templateKey: try params.string("ddmTemplateKey") ?? "",
            urlTitle: ArticleXML.urlTitle(title), articleId: nil, externalReferenceCode: nil)
    }

    /// A `Map<Locale, String>` parameter: a JSON object, or JSON text holding one.
    private static func localizedMap(_ params: ServiceParameters, _ name: String) throws -> [String: String] {
        if let object = params.object(name) {
            var map: [String: String] = [:]
            for (locale, value) in object.fields.values { map[locale] = value.stringValue ?? "" }
            return map
        }
        guard let text = try params.string(name), !text.isEmpty else { return [:] }
        guard case .object(let object)? = try? JSONValue(parsing: Array(text.utf8)) else {
            throw PortalError.typeConversion(name, .string(text), to: "java.util.Map")
        }
        var map: [String: String] = [:]
        for (locale, value) in object { map[locale] = value.stringValue ?? "" }
        return map
    }
}

extension Article {
    /// Sets the row's `version` (an update's next version).
    fileprivate mutating func setVersion(_ version: Double) {
        guard case .object(var object) = row else { return }
        object["version"] = .double(version)
        row = .object(object)
    }
}

extension ServiceParameters {
    /// A required `double` (an article's `version`); numeric text converts.
    func double(_ name: String) throws -> Double {
        guard let value = values[name], !value.isNull else { throw PortalError.missingParameter(name) }
        if let number = value.doubleValue { return number }
        if let text = value.stringValue, let number = Double(text) { return number }
        throw PortalError.typeConversion(name, value, to: "double")
    }
}

extension PortalError {
    /// JournalArticleLocalServiceImpl.validate: no title in the default locale.
    static let articleTitle = PortalError(status: 500, type: "com.liferay.journal.exception.ArticleTitleException", message: "")

    /// The content is not a structured content document.
    static let articleContent = PortalError(status: 500, type: "com.liferay.journal.exception.ArticleContentException", message: "")

    static func noSuchStructure(groupId: Int64, key: String) -> PortalError {
        PortalError(
            status: 404, type: "com.liferay.dynamic.data.mapping.exception.NoSuchStructureException",
            message: "No DDMStructure exists with the key {groupId=\(groupId), structureKey=\(key)}")
    }

    static func noSuchStructure(id: Int64) -> PortalError {
        PortalError(
            status: 404, type: "com.liferay.dynamic.data.mapping.exception.NoSuchStructureException",
            message: "No DDMStructure exists with the primary key \(id)")
    }

    static func noSuchArticle(groupId: Int64, articleId: String, version: Double) -> PortalError {
        PortalError(
            status: 404, type: "com.liferay.journal.exception.NoSuchArticleException",
            message: "No JournalArticle exists with the key {groupId=\(groupId), articleId=\(articleId), version=\(version)}")
    }

    static func articleVersion(version: Double, latest: Double) -> PortalError {
        PortalError(
            status: 500, type: "com.liferay.journal.exception.ArticleVersionException",
            message: "The version \(version) is not the latest version \(latest)")
    }
}
