// A plain import: SwiftPM's generated resource accessor imports Foundation publicly.
import Foundation
import ScreensBus

/// `GET /o/headless-delivery/v1.0/sites/{siteId}/structured-contents?page=1&pageSize=20`.
struct StructuredContents: Sendable {
    static let pathPrefix = "/o/headless-delivery/v1.0/sites/"
    static let pathSuffix = "/structured-contents"

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
        let page = try Self.positive(query, "page", default: 1)
        let pageSize = try Self.positive(query, "pageSize", default: 20)
        let articles: [Article]
        do {
            articles = try portal.articles(siteId: site, for: account)
        } catch let error as PortalError {
            throw error.status == 403 ? HeadlessError.forbidden(error.message) : HeadlessError.notFound(error.message)
        }
        let locale = Self.locale(acceptLanguage)
        let (first, overflow) = (page - 1).multipliedReportingOverflow(by: pageSize)
        let range = overflow || first >= articles.count ? 0..<0 : first..<min(articles.count, first + pageSize)
        let items = RowList.visibleIndices(range, hideEvery: portal.hideEvery).map { item(articles[$0], locale: locale) }
        let lastPage = max(1, (articles.count + pageSize - 1) / pageSize)
        let body: JSONValue = [
            "actions": [:],
            "facets": [],
            "items": .array(items),
            "lastPage": .int(Int64(lastPage)),
            "page": .int(Int64(page)),
            "pageSize": .int(Int64(pageSize)),
            "totalCount": .int(Int64(articles.count)),
        ]
        return (body, locale ?? "en_US")
    }

    private static func positive(_ query: QueryString, _ name: String, default defaultValue: Int) throws -> Int {
        do throws(InvalidQueryParameter) {
            let value = try query.integer(name) ?? defaultValue
            guard value > 0 else { throw InvalidQueryParameter(name: name, value: String(value)) }
            return value
        } catch {
            throw HeadlessError.badRequest("Invalid value \"\(error.value)\" for query parameter \(error.name)")
        }
    }

    /// The first language of an `Accept-Language` header as a Liferay locale id (`es-ES` -> `es_ES`).
    static func locale(_ acceptLanguage: String?) -> String? {
        guard let first = acceptLanguage?.split(separator: ",").first?.split(separator: ";").first else { return nil }
        let tag = first.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "-", with: "_")
        return tag.isEmpty || tag == "*" ? nil : tag
    }

    private func item(_ article: Article, locale requested: String?) -> JSONValue {
        let locale = Self.match(requested, in: article.title)
        let row = article.row
        let fields: [JSONValue] = article.fields.map { field in
            [
                "contentFieldValue": ["data": .string(field.values.text(for: Self.match(requested, in: field.values)))],
                "dataType": .string(Self.dataType(field.type)),
                "label": .string(field.name),
                "name": .string(field.name),
            ]
        }
        return [
            "availableLanguages": .array(article.title.availableLocales.map { .string($0.replacingOccurrences(of: "_", with: "-")) }),
            "contentFields": .array(fields),
            "contentStructureId": .string(row["DDMStructureKey"]?.stringValue ?? ""),
            "creator": ["id": row["userId"] ?? .null, "name": row["userName"] ?? .null],
            "dateCreated": .string(ISODate.format(epochMilliseconds: wholeSeconds(row["createDate"]?.int64Value ?? 0))),
            "dateModified": .string(ISODate.format(epochMilliseconds: wholeSeconds(row["modifiedDate"]?.int64Value ?? 0))),
            "datePublished": .string(ISODate.format(epochMilliseconds: wholeSeconds(row["displayDate"]?.int64Value ?? 0))),
            "description": .string(article.description.text(for: Self.match(requested, in: article.description))),
            "friendlyUrlPath": row["urlTitle"] ?? .null,
            "id": row["resourcePrimKey"] ?? .null,
            "key": row["articleId"] ?? .null,
            "siteId": row["groupId"] ?? .null,
            "title": .string(article.title.text(for: locale)),
            "uuid": row["uuid"] ?? .null,
        ]
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
