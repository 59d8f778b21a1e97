import ScreensJSON

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Headless-delivery's web content writes, as its OpenAPI declares them:
///
/// - `POST /o/headless-delivery/v1.0/sites/{siteId}/structured-contents`
///   (postSiteStructuredContent): a new article.
/// - `PUT .../sites/{siteId}/structured-contents/by-external-reference-code/{erc}`
///   (putSiteStructuredContentByExternalReferenceCode): the article with that code,
///   created or replaced; sending it twice leaves one article.
/// - `GET` of the same path: the article, or 404.
/// - `DELETE` of the same path (deleteSiteStructuredContentByExternalReferenceCode) and
///   `DELETE /o/headless-delivery/v1.0/structured-contents/{id}` (deleteStructuredContent):
///   the article is looked up (`getLatestArticleByExternalReferenceCode`, `getLatestArticle`:
///   404 when there is none) and deleted with `JournalArticleService.deleteArticle`, which
///   checks the DELETE permission on its site (403); the answer is 204 with no body. A
///   `GET` of the id path is the article.
///
/// The body is a `StructuredContent`: `title` and `contentStructureId` are required,
/// `contentFields` is `[{name, contentFieldValue: {data}}]` with `data` a string
/// (``DefinitionSource/headlessDeliveryOpenAPI``), and `description`,
/// `friendlyUrlPath`, `externalReferenceCode` and `structuredContentFolderId` are optional.
/// Errors are problem JSON, `{"status":"BAD_REQUEST","title":"..."}`. The answer is the
/// stored article as the list endpoint serves it, so a client can compare the two.
struct StructuredContentWrites: Sendable {
    static let ercSegment = "/by-external-reference-code/"

    /// What a write path names.
    enum Target: Sendable, Equatable {
        /// `.../structured-contents`.
        case site(Int64)
        /// `.../structured-contents/by-external-reference-code/{erc}`.
        case byExternalReferenceCode(site: Int64, erc: String)
        /// `/o/headless-delivery/v1.0/structured-contents/{id}`, for GET and DELETE.
        case article(Int64)
    }

    /// Where one article is named by its id (its `resourcePrimKey`).
    static let articlePathPrefix = "/o/headless-delivery/v1.0/structured-contents/"

    let portal: Portal

    /// The target of a request this type answers: a POST to a site's list, or any method on
    /// a by-external-reference-code path. Other requests (the list GET) go elsewhere.
    static func target(of request: SandboxRequest) -> Target? {
        let path = request.path
        if path.hasPrefix(articlePathPrefix), request.method == "DELETE" || request.method == "GET" {
            let id = path.dropFirst(articlePathPrefix.count)
            guard !id.isEmpty, id.allSatisfy(\.isASCII), id.allSatisfy(\.isNumber), let key = Int64(id) else { return nil }
            return .article(key)
        }
        guard path.hasPrefix(StructuredContents.pathPrefix) else { return nil }
        let rest = path.dropFirst(StructuredContents.pathPrefix.count)
        guard let slash = rest.firstIndex(of: "/"), let site = Int64(rest[..<slash]) else { return nil }
        let tail = rest[slash...]
        if tail == StructuredContents.pathSuffix {
            return request.method == "POST" ? .site(site) : nil
        }
        let ercPrefix = StructuredContents.pathSuffix + ercSegment
        guard tail.hasPrefix(ercPrefix) else { return nil }
        let encoded = tail.dropFirst(ercPrefix.count)
        guard !encoded.isEmpty, !encoded.contains("/"), let erc = Self.percentDecoded(encoded) else { return nil }
        return .byExternalReferenceCode(site: site, erc: erc)
    }

    func respond(to request: SandboxRequest, target: Target, account: Account) -> SandboxResponse {
        do {
            switch (request.method, target) {
            case ("POST", .site(let site)):
                let body = try Self.object(request.body)
                try checkSite(site, account)
                let values = try checkedValues(body, site: site, erc: body["externalReferenceCode"]?.stringValue)
                if let erc = values.externalReferenceCode, find(site: site, erc: erc) != nil {
                    throw HeadlessError.badRequest("Duplicate external reference code \(erc)")
                }
                return answer(create(values, account: account))
            case ("GET", .byExternalReferenceCode(let site, let erc)):
                try checkSite(site, account)
                guard let article = find(site: site, erc: erc) else { throw Self.noSuchArticle(site: site, erc: erc) }
                return answer(article)
            case ("PUT", .byExternalReferenceCode(let site, let erc)):
                let body = try Self.object(request.body)
                try checkSite(site, account)
                let values = try checkedValues(body, site: site, erc: erc)
                guard let existing = find(site: site, erc: erc) else { return answer(create(values, account: account)) }
                let article = portal.written.replace(existing.resourcePrimKey, now: Self.currentMilliseconds()) { date in
                    Article.written(
                        key: existing.resourcePrimKey, values: values, account: account,
                        created: existing.row["createDate"]?.int64Value ?? date, modified: date,
                        uuid: existing.row["uuid"]?.stringValue)
                }
                return answer(article)
            case ("DELETE", .byExternalReferenceCode(let site, let erc)):
                guard let article = find(site: site, erc: erc) else { throw Self.noSuchArticle(site: site, erc: erc) }
                return try delete(article, account)
            case ("GET", .article(let key)):
                guard let article = find(key: key) else { throw Self.noSuchArticle(key: key) }
                try checkSite(article.groupId, account)
                return answer(article)
            case ("DELETE", .article(let key)):
                guard let article = find(key: key) else { throw Self.noSuchArticle(key: key) }
                return try delete(article, account)
            default:
                var response = SandboxResponse.json(405, ["status": "METHOD_NOT_ALLOWED", "title": "HTTP 405 Method Not Allowed"])
                switch target {
                case .site: response.headers.append(("Allow", "GET, POST"))
                case .byExternalReferenceCode: response.headers.append(("Allow", "DELETE, GET, PUT"))
                case .article: response.headers.append(("Allow", "DELETE, GET"))
                }
                return response
            }
        } catch let error as HeadlessError {
            return .json(error.status, error.body)
        } catch {
            return .json(500, ["status": "INTERNAL_SERVER_ERROR", "title": .string("\(error)")])
        }
    }

    /// `JournalArticleService.deleteArticle`: the DELETE permission on the article's site,
    /// then every version gone; 204, no body.
    private func delete(_ article: Article, _ account: Account) throws -> SandboxResponse {
        try checkSite(article.groupId, account)
        portal.written.delete(article.resourcePrimKey)
        return SandboxResponse(status: 204, headers: [], body: [])
    }

    private func answer(_ article: Article) -> SandboxResponse {
        .json(200, StructuredContents(portal: portal).item(article, locale: nil))
    }

    private func create(_ values: ArticleValues, account: Account) -> Article {
        portal.written.add(now: Self.currentMilliseconds()) { key, date in
            Article.written(key: key, values: values, account: account, created: date, modified: date, uuid: nil)
        }
    }

    private func checkSite(_ site: Int64, _ account: Account) throws {
        do {
            try portal.checkGroup(site, for: account)
        } catch let error as PortalError {
            throw error.status == 403 ? HeadlessError.forbidden(error.message) : HeadlessError.notFound(error.message)
        }
    }

    private func find(key: Int64) -> Article? {
        portal.allArticles.first { $0.resourcePrimKey == key }
    }

    private func find(site: Int64, erc: String) -> Article? {
        portal.allArticles.first { $0.groupId == site && $0.externalReferenceCode == erc }
    }

    /// The checks JournalArticleLocalServiceImpl makes, in its order, as headless reports them.
    private func checkedValues(_ body: JSONValue, site: Int64, erc: String?) throws -> ArticleValues {
        guard let title = body["title"]?.stringValue, !title.allSatisfy(\.isWhitespace) else {
            throw HeadlessError.badRequest("Title is required (ArticleTitleException)")
        }
        guard title.count <= Self.titleLength else {
            throw HeadlessError.badRequest("Title is longer than \(Self.titleLength) characters (ArticleTitleException)")
        }
        guard let structureId = body["contentStructureId"]?.int64Value else {
            throw HeadlessError.badRequest("contentStructureId is required")
        }
        guard let structureKey = portal.data.structureIds.first(where: { $0.value == structureId })?.key else {
            throw HeadlessError.badRequest("No DDMStructure exists with the primary key \(structureId)")
        }
        let folderId = body["structuredContentFolderId"]?.int64Value ?? 0
        if folderId != 0 {
            guard let folder = portal.data.journalFolders[folderId], folder.groupId == site else {
                throw HeadlessError.badRequest("No JournalFolder exists with the primary key \(folderId)")
            }
        }
        var fields: [(name: String, data: String)] = []
        for field in body["contentFields"]?.arrayValue ?? [] {
            guard let name = field["name"]?.stringValue, !name.isEmpty else {
                throw HeadlessError.badRequest("Every content field needs a name")
            }
            let data = field["contentFieldValue"]?["data"]
            // ContentFieldValue.data is `type: string` in the OpenAPI: the request body is
            // refused before anything is stored, as its schema refuses a number or boolean.
            if let data, !data.isNull, data.stringValue == nil {
                throw HeadlessError.badRequest("contentFields[\(name)].contentFieldValue.data must be a string, found \(data.typeName)")
            }
            fields.append((name, data?.stringValue ?? ""))
        }
        let friendly = body["friendlyUrlPath"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        return ArticleValues(
            groupId: site, folderId: folderId, title: title, description: body["description"]?.stringValue ?? "",
            fields: fields, structureKey: structureKey, templateKey: "", urlTitle: friendly ?? ArticleXML.urlTitle(title),
            articleId: nil, externalReferenceCode: erc)
    }

    /// The JournalArticle title column's length (portlet-model-hints.xml).
    static let titleLength = 400

    private static func object(_ body: [UInt8]) throws -> JSONValue {
        guard let value = try? JSONValue(parsing: body), case .object = value else {
            throw HeadlessError.badRequest("The request body is not a StructuredContent JSON object")
        }
        return value
    }

    /// A path segment's `%XX` escapes decoded (a `+` stays a `+` in a path); nil when an
    /// escape is broken or the bytes are not UTF-8.
    static func percentDecoded(_ segment: Substring) -> String? {
        var bytes: [UInt8] = []
        var utf8 = Array(segment.utf8)[...]
        while let byte = utf8.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard utf8.count >= 2, let decoded = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) else { return nil }
            bytes.append(decoded)
            utf8 = utf8.dropFirst(2)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// `getLatestArticle(resourcePrimKey)` finding nothing.
    static func noSuchArticle(key: Int64) -> HeadlessError {
        HeadlessError.notFound("No JournalArticle exists with the key {resourcePrimKey=\(key)}")
    }

    static func noSuchArticle(site: Int64, erc: String) -> HeadlessError {
        HeadlessError.notFound("No JournalArticle exists with the key {groupId=\(site), externalReferenceCode=\(erc)}")
    }

    static func currentMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }
}
