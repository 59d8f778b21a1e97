import ScreensJSON
import Synchronization

/// Web content articles that writes created or changed while the sandbox runs, laid over
/// the data directory's articles.
///
/// Every article list (JSON-WS `get-articles`, headless structured contents) reads the
/// merged view, so a written article is in the next page. An article is identified by its
/// `resourcePrimKey` (headless `id`); a changed data-file article keeps its place in the
/// list, a new one comes after the data file's.
final class WrittenArticles: Sendable {
    private struct Table: Sendable {
        /// Written versions by resourcePrimKey: changes to data-file articles and new ones.
        var byKey: [Int64: Article] = [:]
        /// New articles' keys in creation order.
        var added: [Int64] = []
        /// Deleted articles (from the data file or written): in no list any more.
        var deleted: Set<Int64> = []
        var nextKey: Int64 = WrittenArticles.firstWrittenKey
        var lastModified: Int64 = 0
    }

    /// Keys of written articles start here, far above the sample data's.
    static let firstWrittenKey: Int64 = 6_000_000
    private let table = Mutex(Table())

    init() {}

    /// `stored` with the written changes applied, then the new articles.
    func merged(_ stored: [Article]) -> [Article] {
        table.withLock { table in
            guard !table.byKey.isEmpty || !table.deleted.isEmpty else { return stored }
            var articles = stored.map { article in table.byKey[article.resourcePrimKey] ?? article }
            articles += table.added.compactMap { table.byKey[$0] }
            if !table.deleted.isEmpty { articles.removeAll { table.deleted.contains($0.resourcePrimKey) } }
            return articles
        }
    }

    /// Stores a new article built by `make` from a fresh key and modification date.
    func add(now: Int64, _ make: (_ key: Int64, _ date: Int64) -> Article) -> Article {
        table.withLock { table in
            let key = table.nextKey
            table.nextKey += 1
            let article = make(key, Self.nextDate(&table, now: now))
            table.byKey[key] = article
            table.added.append(key)
            return article
        }
    }

    /// Replaces an article (from the data file or written) with `make`'s new version.
    func replace(_ key: Int64, now: Int64, _ make: (_ date: Int64) -> Article) -> Article {
        table.withLock { table in
            let article = make(Self.nextDate(&table, now: now))
            table.byKey[key] = article
            return article
        }
    }

    /// Removes the article with `key` (every version of it, as `JournalArticleService.deleteArticle`
    /// removes an article) from every list.
    func delete(_ key: Int64) {
        table.withLock { table in
            table.deleted.insert(key)
            table.byKey[key] = nil
            table.added.removeAll { $0 == key }
        }
    }

    /// Modified dates strictly increase, so two writes in one millisecond still differ.
    private static func nextDate(_ table: inout Table, now: Int64) -> Int64 {
        table.lastModified = max(now, table.lastModified + 1)
        return table.lastModified
    }
}

extension Article {
    /// The key that names the article across versions (headless `id`).
    var resourcePrimKey: Int64 { row["resourcePrimKey"]?.int64Value ?? 0 }

    /// The article's external reference code; articles stored without one use their
    /// articleId, as Liferay 7.4 fills the column on upgrade.
    var externalReferenceCode: String {
        row["externalReferenceCode"]?.stringValue ?? row["articleId"]?.stringValue ?? ""
    }

    /// The values a write gives an article, with everything else a JournalArticle row has.
    static func written(
        key: Int64, values: ArticleValues, account: Account, created: Int64, modified: Int64, uuid: String?
    ) -> Article {
        let locale = values.locale
        var row = JSONObject(minimumCapacity: 34)
        row.appendUnchecked(key: "uuid", value: .string(uuid ?? WrittenUUID.make(key, kind: "a000")))
        row.appendUnchecked(key: "id", value: .int(key + 100_000))
        row.appendUnchecked(key: "resourcePrimKey", value: .int(key))
        row.appendUnchecked(key: "groupId", value: .int(values.groupId))
        row.appendUnchecked(key: "companyId", value: .int(20099))
        row.appendUnchecked(key: "userId", value: .int(account.userId))
        row.appendUnchecked(key: "userName", value: .string(account.emailAddress))
        row.appendUnchecked(key: "createDate", value: .int(created))
        row.appendUnchecked(key: "modifiedDate", value: .int(modified))
        row.appendUnchecked(key: "externalReferenceCode", value: .string(values.externalReferenceCode ?? values.articleId ?? String(key)))
        row.appendUnchecked(key: "folderId", value: .int(values.folderId))
        row.appendUnchecked(key: "classNameId", value: .int(0))
        row.appendUnchecked(key: "classPK", value: .int(0))
        row.appendUnchecked(key: "treePath", value: .string(values.folderId == 0 ? "/" : "/\(values.folderId)/"))
        row.appendUnchecked(key: "articleId", value: .string(values.articleId ?? String(key)))
        row.appendUnchecked(key: "version", value: .double(1.0))
        row.appendUnchecked(key: "title", value: .string(ArticleXML.localized("Title", values.title, locale: locale)))
        row.appendUnchecked(key: "urlTitle", value: .string(values.urlTitle))
        row.appendUnchecked(key: "description", value: .string(ArticleXML.localized("Description", values.description, locale: locale)))
        row.appendUnchecked(key: "content", value: .string(ArticleXML.content(values.fields, locale: locale)))
        row.appendUnchecked(key: "DDMStructureKey", value: .string(values.structureKey))
        row.appendUnchecked(key: "DDMTemplateKey", value: .string(values.templateKey))
        row.appendUnchecked(key: "layoutUuid", value: .string(""))
        row.appendUnchecked(key: "displayDate", value: .int(created))
        row.appendUnchecked(key: "expirationDate", value: .null)
        row.appendUnchecked(key: "reviewDate", value: .null)
        row.appendUnchecked(key: "indexable", value: .bool(true))
        row.appendUnchecked(key: "smallImage", value: .bool(false))
        row.appendUnchecked(key: "smallImageId", value: .int(0))
        row.appendUnchecked(key: "smallImageURL", value: .string(""))
        row.appendUnchecked(key: "status", value: .int(0))
        row.appendUnchecked(key: "statusByUserId", value: .int(account.userId))
        row.appendUnchecked(key: "statusByUserName", value: .string(account.emailAddress))
        row.appendUnchecked(key: "statusDate", value: .int(modified))
        row.appendUnchecked(key: "defaultLanguageId", value: .string(locale))
        return Article(
            row: .object(row), groupId: values.groupId, folderId: values.folderId,
            title: LocalizedText(defaultLocale: locale, values: [(locale, values.title)]),
            description: LocalizedText(defaultLocale: locale, values: [(locale, values.description)]),
            fields: values.fields.map { ContentField(name: $0.name, type: "text", values: LocalizedText(defaultLocale: locale, values: [(locale, $0.data)])) })
    }

}

/// The uuid of an entry a write created: its id in the last group, `kind` (one per model)
/// in the fourth, so uuids of different models never collide.
enum WrittenUUID {
    static func make(_ id: Int64, kind: String) -> String {
        let hex = String(id, radix: 16)
        return "00000000-0000-4000-\(kind)-" + String(repeating: "0", count: max(0, 12 - hex.count)) + hex
    }
}

/// What a write stores in an article, after the portal's checks (both transports).
struct ArticleValues: Sendable {
    var groupId: Int64
    var folderId: Int64
    var title: String
    var description: String
    var fields: [(name: String, data: String)]
    var structureKey: String
    var templateKey: String
    var urlTitle: String
    var articleId: String?
    var externalReferenceCode: String?
    var locale: String = "en_US"
}

/// Writes the XML documents Liferay keeps titles and structured content in (the forms
/// ``LocalizedXML`` reads).
enum ArticleXML {
    static func localized(_ element: String, _ text: String, locale: String) -> String {
        "<?xml version='1.0' encoding='UTF-8'?><root available-locales=\"\(locale)\" default-locale=\"\(locale)\"><\(element) language-id=\"\(locale)\">\(escaped(text))</\(element)></root>"
    }

    static func content(_ fields: [(name: String, data: String)], locale: String) -> String {
        var xml = "<?xml version=\"1.0\"?>\n<root available-locales=\"\(locale)\" default-locale=\"\(locale)\">"
        for field in fields {
            xml += "<dynamic-element name=\"\(escaped(field.name))\" type=\"text\" index-type=\"keyword\"><dynamic-content language-id=\"\(locale)\">\(escaped(field.data))</dynamic-content></dynamic-element>"
        }
        return xml + "</root>"
    }

    /// The five XML entities; the reader decodes them back.
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

    /// The friendly URL Liferay derives from a title: lowercased, runs of anything but
    /// letters and digits become one `-`.
    static func urlTitle(_ title: String) -> String {
        var result = ""
        var pendingDash = false
        for character in title.lowercased() {
            if character.isLetter || character.isNumber {
                if pendingDash, !result.isEmpty { result.append("-") }
                pendingDash = false
                result.append(character)
            } else {
                pendingDash = true
            }
        }
        return String(result.prefix(255))
    }
}
