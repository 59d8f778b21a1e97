// A plain import: SwiftPM's generated resource accessor imports Foundation publicly.
import Foundation
import ScreensJSON

/// `GET /o/headless-delivery/v1.0/sites/{siteId}/structured-contents`, with the query
/// parameters headless-delivery's OpenAPI declares for it: `page`, `pageSize`, `flatten`,
/// `filter`, `search`, `sort`, `fields`, `restrictFields` and `nestedFields`.
///
/// Items follow headless-delivery's published `StructuredContent` schema (the fidelity tests
/// check every answer against a copy of it); the page
/// is `{actions, facets, items, lastPage, page, pageSize, totalCount}`.
struct StructuredContents: Sendable {
    static let pathPrefix = "/o/headless-delivery/v1.0/sites/"
    static let pathSuffix = "/structured-contents"

    /// StructuredContentEntityModel: the fields `filter` and `sort` may use.
    static let entityModel = ODataEntityModel(fields: [
        "contentStructureId": .integer, "creatorId": .integer, "dateCreated": .dateTime, "dateModified": .dateTime,
        "datePublished": .dateTime, "title": .string, "keywords": .collection, "taxonomyCategoryIds": .collection,
    ])

    let portal: Portal

    /// The site id of a structured-contents path, or nil for any other path.
    static func siteId(ofPath path: String) -> Substring? {
        guard path.hasPrefix(pathPrefix), path.hasSuffix(pathSuffix) else { return nil }
        let id = path.dropFirst(pathPrefix.count).dropLast(pathSuffix.count)
        return id.isEmpty || id.contains("/") ? nil : id
    }

    /// One page of the site's web content, localized for `acceptLanguage`.
    func page(siteId: Substring, query: QueryString, acceptLanguage: String?, account: Account) throws -> (body: JSONValue, locale: String) {
        guard let site = Int64(siteId) else { throw HeadlessError.notFound("No Group exists with the key \(siteId)") }
        let page = try HeadlessPaging.positive(query, "page", default: 1)
        let pageSize = try HeadlessPaging.positive(query, "pageSize", default: 20)
        var articles: [Article]
        do {
            articles = try portal.articles(siteId: site, for: account)
        } catch let error as PortalError {
            throw error.status == 403 ? HeadlessError.forbidden(error.message) : HeadlessError.notFound(error.message)
        }
        // Without flatten=true a site's list holds only the root folder's content.
        if query["flatten"]?.lowercased() != "true" { articles = articles.filter { $0.folderId == 0 } }
        let locale = Self.locale(acceptLanguage)
        var selected = articles.map { (article: $0, entity: entity($0, locale: locale)) }
        do throws(ODataError) {
            if let text = query["filter"], !text.isEmpty {
                let filter = try ODataFilterParser.parse(text)
                try Self.entityModel.check(filter, filter: text)
                var passing: [(article: Article, entity: [String: ODataLiteral])] = []
                for item in selected where try Self.entityModel.evaluate(filter, on: item.entity) { passing.append(item) }
                selected = passing
            }
            if let terms = query["search"]?.lowercased().split(whereSeparator: \.isWhitespace), !terms.isEmpty {
                selected = selected.filter { item in
                    let text = searchableText(item.article, locale: locale)
                    return terms.allSatisfy { text.contains($0) }
                }
            }
            if let text = query["sort"], !text.isEmpty {
                let sort = try ODataSort.parse(text, model: Self.entityModel)
                selected = selected.enumerated().sorted { left, right in
                    if sort.areInIncreasingOrder(left.element.entity, right.element.entity) { return true }
                    if sort.areInIncreasingOrder(right.element.entity, left.element.entity) { return false }
                    return left.offset < right.offset
                }.map(\.element)
            }
        } catch {
            throw HeadlessError.badRequest(error.message)
        }
        let selection = try FieldSelection(fields: query["fields"], restrictFields: query["restrictFields"])
        let range = HeadlessPaging.range(page: page, pageSize: pageSize, count: selected.count)
        let items = RowList.visibleIndices(range, hideEvery: portal.hideEvery).map {
            selection.apply(to: item(selected[$0].article, locale: locale))
        }
        let body = HeadlessPaging.body(items: items, page: page, pageSize: pageSize, totalCount: selected.count)
        return (body, locale ?? "en_US")
    }


    /// The first language of an `Accept-Language` header as a Liferay locale id (`es-ES` -> `es_ES`).
    static func locale(_ acceptLanguage: String?) -> String? {
        guard let first = acceptLanguage?.split(separator: ",").first?.split(separator: ";").first else { return nil }
        let tag = first.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "-", with: "_")
        return tag.isEmpty || tag == "*" ? nil : tag
    }

    /// The values `filter` and `sort` see, by entity-model field.
    private func entity(_ article: Article, locale: String?) -> [String: ODataLiteral] {
        let row = article.row
        return [
            "contentStructureId": .integer(structureId(article)),
            "creatorId": .integer(row["userId"]?.int64Value ?? 0),
            "dateCreated": .dateTime(wholeSeconds(row["createDate"]?.int64Value ?? 0)),
            "dateModified": .dateTime(wholeSeconds(row["modifiedDate"]?.int64Value ?? 0)),
            "datePublished": .dateTime(wholeSeconds(row["displayDate"]?.int64Value ?? 0)),
            "title": .string(article.title.text(for: Self.match(locale, in: article.title))),
        ]
    }

    /// Title, description and field values in the request's language, lowercased, for `search`.
    private func searchableText(_ article: Article, locale: String?) -> String {
        var parts = [
            article.title.text(for: Self.match(locale, in: article.title)),
            article.description.text(for: Self.match(locale, in: article.description)),
        ]
        parts += article.fields.map { $0.values.text(for: Self.match(locale, in: $0.values)) }
        return parts.joined(separator: "\n").lowercased()
    }

    private func structureId(_ article: Article) -> Int64 {
        portal.data.structureIds[article.row["DDMStructureKey"]?.stringValue ?? ""] ?? 0
    }

    /// One article as a `StructuredContent` (the list's items and the write endpoints' answers).
    func item(_ article: Article, locale requested: String?) -> JSONValue {
        let locale = Self.match(requested, in: article.title)
        let row = article.row
        let fields: [JSONValue] = article.fields.map { field in
            [
                "contentFieldValue": ["data": .string(field.values.text(for: Self.match(requested, in: field.values)))],
                "dataType": .string(Self.dataType(field.type)),
                "inputControl": .string(Self.inputControl(field.type)),
                "label": .string(field.name),
                "name": .string(field.name),
                "nestedContentFields": [],
                "repeatable": false,
            ]
        }
        var item: JSONObject = [
            "actions": [:],
            "availableLanguages": .array(article.title.availableLocales.map { .string($0.replacingOccurrences(of: "_", with: "-")) }),
            "contentFields": .array(fields),
            "contentStructureId": .int(structureId(article)),
            "creator": [
                "contentType": "UserAccount", "id": .int(row["userId"]?.int64Value ?? 0),
                "name": .string(row["userName"]?.stringValue ?? ""),
            ],
            "customFields": [],
            "dateCreated": .string(ISODate.format(epochMilliseconds: wholeSeconds(row["createDate"]?.int64Value ?? 0))),
            "dateModified": .string(ISODate.format(epochMilliseconds: wholeSeconds(row["modifiedDate"]?.int64Value ?? 0))),
            "datePublished": .string(ISODate.format(epochMilliseconds: wholeSeconds(row["displayDate"]?.int64Value ?? 0))),
            "description": .string(article.description.text(for: Self.match(requested, in: article.description))),
            "externalReferenceCode": .string(article.externalReferenceCode),
            "friendlyUrlPath": .string(row["urlTitle"]?.stringValue ?? ""),
            "id": .int(row["resourcePrimKey"]?.int64Value ?? 0),
            "key": .string(row["articleId"]?.stringValue ?? ""),
            "keywords": [],
            "neverExpire": .bool(row["expirationDate"]?.int64Value == nil),
            "numberOfComments": .int(
                Int64(portal.data.discussions.count(className: StructuredContentComments.journalArticle, classPK: row["resourcePrimKey"]?.int64Value ?? 0))),
            "relatedContents": [],
            "renderedContents": [],
            "siteId": .int(article.groupId),
            "structuredContentFolderId": .int(article.folderId),
            "subscribed": false,
            "taxonomyCategoryBriefs": [],
            "title": .string(article.title.text(for: locale)),
            "uuid": .string(row["uuid"]?.stringValue ?? ""),
        ]
        // Liferay leaves unset values out rather than writing null.
        if let expiration = row["expirationDate"]?.int64Value {
            item["dateExpired"] = .string(ISODate.format(epochMilliseconds: wholeSeconds(expiration)))
        }
        return .object(item)
    }

    /// `requested` if the text has it, else the first locale of the same language (`es` -> `es_ES`).
    private static func match(_ requested: String?, in text: LocalizedText) -> String? {
        guard let requested else { return nil }
        if text.values.contains(where: { $0.locale == requested }) { return requested }
        let language = requested.split(separator: "_").first.map(String.init) ?? requested
        return text.values.first { $0.locale.split(separator: "_").first.map(String.init) == language }?.locale
    }

    private static func dataType(_ type: String) -> String {
        switch type {
        case "boolean": "boolean"
        case "text_area": "html"
        default: "string"
        }
    }

    private static func inputControl(_ type: String) -> String {
        switch type {
        case "boolean": "checkbox"
        case "text_area": "rich-text"
        default: "text"
        }
    }
}

/// A headless-delivery error: `{"status":"NOT_FOUND","title":"..."}`.
struct HeadlessError: Error, Sendable {
    var status: Int
    var statusName: String
    var title: String

    var body: JSONValue { ["status": .string(statusName), "title": .string(title)] }

    static func notFound(_ title: String) -> HeadlessError { HeadlessError(status: 404, statusName: "NOT_FOUND", title: title) }
    static func forbidden(_ title: String) -> HeadlessError { HeadlessError(status: 403, statusName: "FORBIDDEN", title: title) }
    static func badRequest(_ title: String) -> HeadlessError { HeadlessError(status: 400, statusName: "BAD_REQUEST", title: title) }
}

/// Headless delivery writes dates to the second, as Liferay does.
private func wholeSeconds(_ milliseconds: Int64) -> Int64 {
    milliseconds - ((milliseconds % 1000) + 1000) % 1000
}
