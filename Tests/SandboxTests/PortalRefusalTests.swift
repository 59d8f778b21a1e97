import Foundation
@testable import Sandbox
import ScreensJSON
import Testing

/// What a real portal refuses, the sandbox refuses the same way, so a client test that
/// sends it fails against the sandbox too.
@Suite("Sandbox refuses what a portal refuses")
struct PortalRefusalTests {
    static let addEntry = "/bookmarks.bookmarksentry/add-entry"
    static let entry = #""groupId":20143,"folderId":20201,"name":"n","url":"https://example.com/n","description":"d""#

    @Test("an explicit null serviceContext fails as the portal's service fails on it (NullPointerException); left out it is the request's own")
    func nullServiceContext() async throws {
        try await withSandbox { client, _ in
            for key in [#""serviceContext":null"#, #""-serviceContext":"""#] {
                let body = try client.invoke(#"{"\#(Self.addEntry)":{\#(Self.entry),\#(key)}}"#).expect(500).json()
                #expect(body["error"]?["type"] == "java.lang.NullPointerException", "\(key)")
                #expect(body["throwable"]?.stringValue?.hasPrefix("java.lang.NullPointerException") == true)
            }
            let ddl = try client.invoke(
                #"{"/ddl.ddlrecord/update-record":{"recordId":1,"displayIndex":0,"fieldsMap":{},"mergeFields":true,"serviceContext":null}}"#
            ).expect(500).json()
            #expect(ddl["error"]?["type"] == "java.lang.NullPointerException")
            let added = try client.invoke(#"{"\#(Self.addEntry)":{\#(Self.entry)}}"#).expect(200).json()
            #expect(added["entryId"]?.int64Value != nil)
            let typed = try client.invoke(
                #"{"\#(Self.addEntry)":{\#(Self.entry),"+serviceContext":"com.liferay.portal.kernel.service.ServiceContext"}}"#
            ).expect(200).json()
            #expect(typed["entryId"]?.int64Value != nil)
        }
    }

    static let article = #""groupId":20143,"folderId":20300,"titleMap":{"en_US":"V"},"descriptionMap":{},"content":"<root><dynamic-element name=\"Body\"><dynamic-content language-id=\"en_US\">b</dynamic-content></dynamic-element></root>","ddmTemplateKey":"""#
    static let noAction = "com.liferay.portal.kernel.jsonwebservice.NoSuchJSONWebServiceException"

    @Test("each version serves exactly its own write signatures: add-article by key on 7.2-7.3, by id with an external reference code on 7.4, add-record with fieldsMap on 7.0 only")
    func perVersionWriteSignatures() async throws {
        let byKey = #"{"/journal.journalarticle/add-article":{\#(Self.article),"ddmStructureKey":"NEWS-ARTICLE"}}"#
        let byId = #"{"/journal.journalarticle/add-article":{\#(Self.article),"ddmStructureId":20701,"externalReferenceCode":"v74"}}"#
        let record = #"{"/ddl.ddlrecord/add-record":{"groupId":20143,"recordSetId":20501,"displayIndex":0,"fieldsMap":{"name":"R","email":"r@example.com"}}}"#
        for version in LiferayVersion.allCases {
            try await withSandbox(.init { $0.liferayVersion = version }) { client, _ in
                let key = try #require(try client.invoke(byKey).response)
                let id = try #require(try client.invoke(byId).response)
                #expect(key.status == ([.v7_2, .v7_3].contains(version) ? 200 : 404), "\(version) by key")
                #expect(id.status == (version == .v7_4 ? 200 : 404), "\(version) by id")
                if id.status == 200 {
                    #expect(try id.json()["externalReferenceCode"] == "v74")
                    #expect(try id.json()["DDMStructureKey"] == "NEWS-ARTICLE")
                }
                if key.status == 404 { #expect(try key.json()["error"]?["type"]?.stringValue == Self.noAction) }
                #expect(try client.invoke(record).response?.status == (version == .v7_0 ? 200 : 404), "\(version) add-record")
            }
        }
    }

    @Test("delete-record removes a record on every version, once: the next read lacks it, and again it is NoSuchRecordException")
    func deleteRecord() async throws {
        let count = #"{"/screens.screensddlrecord/get-ddl-records-count":{"ddlRecordSetId":20501}}"#
        for version in LiferayVersion.allCases {
            try await withSandbox(.init { $0.liferayVersion = version }) { client, _ in
                let before = try #require(try client.invoke(count).expect(200).json().int64Value)
                let records = try client.invoke(
                    #"{"/screens.screensddlrecord/get-ddl-records":{"ddlRecordSetId":20501,"locale":"en_US","start":0,"end":1,"obc":null}}"#
                ).expect(200).json()
                let recordId = try #require(records[0]?["modelAttributes"]?["recordId"]?.int64Value)
                let delete = #"{"/ddl.ddlrecord/delete-record":{"recordId":\#(recordId)}}"#
                _ = try client.invoke(delete).expect(200)
                #expect(try client.invoke(count).expect(200).json().int64Value == before - 1, "\(version)")
                let again = try client.invoke(delete).expect(404).json()
                #expect(again["error"]?["type"]?.stringValue?.hasSuffix("NoSuchRecordException") == true, "\(version): \(again)")
            }
        }
    }

    @Test("delete-article(groupId, articleId, articleURL) on every version: the article leaves get-articles; again, or another site's, refused")
    func deleteArticle() async throws {
        let count = #"{"/journal.journalarticle/get-articles-count":{"groupId":20143,"folderId":0}}"#
        for version in LiferayVersion.allCases {
            try await withSandbox(.init { $0.liferayVersion = version }) { client, _ in
                let before = try #require(try client.invoke(count).expect(200).json().int64Value)
                let delete = #"{"/journal.journalarticle/delete-article":{"groupId":20143,"articleId":"40001","articleURL":""}}"#
                _ = try client.invoke(delete).expect(200)
                #expect(try client.invoke(count).expect(200).json().int64Value == before - 1, "\(version)")
                let again = try client.invoke(delete).expect(404).json()
                #expect(again["error"]?["type"]?.stringValue?.hasSuffix("NoSuchArticleException") == true, "\(version): \(again)")
                // joe is no member of site 20144.
                let foreign = #"{"/journal.journalarticle/delete-article":{"groupId":20144,"articleId":"40074","articleURL":""}}"#
                _ = try client.invoke(foreign, headers: [TestHTTPClient.joe]).expect(403)
            }
        }
    }

    @Test("get-articles paged without its comparator names no signature on 7.3 (no obc, no shorter overload with start and end): refused as an unknown action")
    func getArticlesWithoutComparator() async throws {
        try await withSandbox(.init { $0.liferayVersion = .v7_3 }) { client, _ in
            let refused = try client.invoke(#"{"/journal.journalarticle/get-articles":{"groupId":20143,"folderId":0,"start":0,"end":5}}"#).expect(404).json()
            #expect(refused["error"]?["type"]?.stringValue == Self.noAction)
            _ = try client.invoke(#"{"/journal.journalarticle/get-articles":{"groupId":20143,"folderId":0,"locale":"en_US","start":0,"end":5,"orderByComparator":null}}"#).expect(200)
        }
    }

    static let structuredContents = "/o/headless-delivery/v1.0/sites/20143/structured-contents"
    static let json = [("Content-Type", "application/json"), TestHTTPClient.testUser]

    @Test("contentFieldValue.data is a string in the OpenAPI: a number or boolean is a 400, its text is stored")
    func nonStringData() async throws {
        try await withSandbox { client, _ in
            for (index, data) in ["42", "true", "1.5", #"{"a":1}"#].enumerated() {
                let body = #"{"title":"Data \#(index)","contentStructureId":20701,"contentFields":[{"name":"content","contentFieldValue":{"data":\#(data)}}]}"#
                let refused = try client.send("POST", Self.structuredContents, headers: Self.json, body: Array(body.utf8)).expect(400).json()
                #expect(refused["status"] == "BAD_REQUEST", "\(data)")
                #expect(refused["title"]?.stringValue?.contains("must be a string") == true)
            }
            let text = #"{"title":"Data text","contentStructureId":20701,"contentFields":[{"name":"content","contentFieldValue":{"data":"42"}}]}"#
            let stored = try client.send("POST", Self.structuredContents, headers: Self.json, body: Array(text.utf8)).expect(200).json()
            #expect(stored["contentFields"]?[0]?["contentFieldValue"]?["data"] == "42")
        }
    }

    /// A token of the sandbox client, asked with `scope` (all the client's scopes when nil).
    private func token(_ client: TestHTTPClient, scope: String?) throws -> String {
        var form = "grant_type=client_credentials&client_id=sandbox-client&client_secret=sandbox-secret"
        if let scope { form += "&scope=" + scope.replacingOccurrences(of: " ", with: "+") }
        let answer = try client.send(
            "POST", "/o/oauth2/token", headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Array(form.utf8)
        ).expect(200).json()
        return try #require(answer["access_token"]?.stringValue)
    }

    @Test("a token whose scope is read-only reads but cannot POST or PUT headless, nor invoke a JSON-WS add or update")
    func readOnlyScope() async throws {
        try await withSandbox { client, _ in
            let body = Array(#"{"title":"Scoped","contentStructureId":20701,"contentFields":[]}"#.utf8)
            let read = try token(client, scope: "Liferay.Headless.Delivery.everything.read everything.read")
            let bearer = ("Authorization", "Bearer \(read)")
            _ = try client.get(Self.structuredContents, headers: [bearer]).expect(200)
            let post = try client.send("POST", Self.structuredContents, headers: [("Content-Type", "application/json"), bearer], body: body).expect(403).json()
            #expect(post["status"] == "FORBIDDEN")
            _ = try client.send(
                "PUT", Self.structuredContents + "/by-external-reference-code/scoped", headers: [("Content-Type", "application/json"), bearer], body: body
            ).expect(403)
            _ = try client.invoke(#"{"/bookmarks.bookmarksentry/get-entries-count":{"groupId":20143,"folderId":0}}"#, headers: [bearer]).expect(200)
            let add = try client.invoke(#"{"\#(Self.addEntry)":{\#(Self.entry)}}"#, headers: [bearer]).expect(403).json()
            #expect(add["error"]?["type"] == "com.liferay.portal.kernel.security.access.control.AccessControlException")

            let write = ("Authorization", "Bearer \(try token(client, scope: "Liferay.Headless.Delivery.everything.write everything.write"))")
            _ = try client.send("POST", Self.structuredContents, headers: [("Content-Type", "application/json"), write], body: body).expect(200)
            _ = try client.invoke(#"{"\#(Self.addEntry)":{\#(Self.entry)}}"#, headers: [write]).expect(200)
            _ = try client.get(Self.structuredContents, headers: [write]).expect(403)
        }
    }

    @Test("a token request that authenticates the client twice (form client_id plus Basic) is invalid_client (RFC 6749 section 2.3)")
    func clientAuthenticatedTwice() async throws {
        try await withSandbox { client, _ in
            let basic = ("Authorization", "Basic " + Data("sandbox-client:sandbox-secret".utf8).base64EncodedString())
            let form = ("Content-Type", "application/x-www-form-urlencoded")
            let twice = try client.send(
                "POST", "/o/oauth2/token", headers: [form, basic], body: Array("grant_type=client_credentials&client_id=sandbox-client".utf8)
            ).expect(401).json()
            #expect(twice["error"] == "invalid_client")
            let once = try client.send("POST", "/o/oauth2/token", headers: [form, basic], body: Array("grant_type=client_credentials".utf8)).expect(200).json()
            #expect(once["access_token"]?.stringValue != nil)
        }
    }

    @Test("a client that fails Basic authentication gets 401 invalid_client with WWW-Authenticate (RFC 6749 section 5.2)")
    func basicClientFailureNamesTheScheme() async throws {
        try await withSandbox { client, _ in
            let form = ("Content-Type", "application/x-www-form-urlencoded")
            let wrong = ("Authorization", "Basic " + Data("sandbox-client:wrong-secret".utf8).base64EncodedString())
            let byHeader = try client.send("POST", "/o/oauth2/token", headers: [form, wrong], body: Array("grant_type=client_credentials".utf8)).expect(401)
            #expect(try byHeader.json()["error"] == "invalid_client")
            #expect(byHeader.headers.contains { $0.name.lowercased() == "www-authenticate" && $0.value.hasPrefix("Basic") })
            // By form parameters the header is not required (the client named no scheme).
            let byForm = try client.send(
                "POST", "/o/oauth2/token", headers: [form],
                body: Array("grant_type=client_credentials&client_id=sandbox-client&client_secret=wrong".utf8)
            ).expect(401)
            #expect(try byForm.json()["error"] == "invalid_client")
        }
    }

    @Test("a grant the application does not allow is 400 unauthorized_client, before the credentials are looked at")
    func grantNotAllowedIsUnauthorizedClient() async throws {
        var plan = OAuth2Plan()
        plan.clients = [OAuth2Plan.Client(id: "machine", secret: "machine-secret", userEmail: "test@liferay.com", grantTypes: ["client_credentials"])]
        try await withSandbox(.init { $0.oauth2 = plan }) { client, _ in
            let form = ("Content-Type", "application/x-www-form-urlencoded")
            let password = try client.send(
                "POST", "/o/oauth2/token", headers: [form],
                body: Array("grant_type=password&client_id=machine&client_secret=machine-secret&username=joe@liferay.com&password=wrong".utf8)
            ).expect(400)
            #expect(try password.json()["error"] == "unauthorized_client")
            // The grant it allows still works.
            let allowed = try client.send(
                "POST", "/o/oauth2/token", headers: [form],
                body: Array("grant_type=client_credentials&client_id=machine&client_secret=machine-secret".utf8)
            ).expect(200)
            #expect(try allowed.json()["access_token"] != nil)
        }
    }
}

/// The sandbox answers as a portal answers `curl`: headless pretty-printed with two-space
/// indentation, JSON-WS compact.
@Suite("Sandbox formats like a portal")
struct PortalFormattingTests {
    @Test("headless answers are pretty-printed with two-space indentation and parse to the compact answer; JSON-WS stays compact; compactHeadless turns it off")
    func prettyHeadless() async throws {
        let path = "/o/headless-delivery/v1.0/sites/20143/structured-contents?pageSize=2"
        let compact = try await withSandbox(.init { $0.compactHeadless = true }) { client, _ in
            try client.get(path, headers: [TestHTTPClient.testUser]).expect(200)
        }
        #expect(!compact.text.contains("\n"))
        try await withSandbox { client, _ in
            let pretty = try client.get(path, headers: [TestHTTPClient.testUser]).expect(200)
            #expect(pretty.text.hasPrefix("{\n  \""), "\(pretty.text.prefix(80))")
            #expect(pretty.text.contains("\n  \"items\": [\n    {\n      \""))
            #expect(pretty.text.contains("\n  \"pageSize\": 2"))
            #expect(try pretty.json() == compact.json(), "the same document")
            let problem = try #require(try client.get("/o/headless-delivery/v1.0/sites/99999/structured-contents", headers: [TestHTTPClient.testUser]).response)
            #expect(problem.text.hasPrefix("{\n  \""), "errors too: \(problem.text.prefix(80))")
            let jsonws = try client.invoke(#"{"/bookmarks.bookmarksentry/get-entries-count":{"groupId":20143,"folderId":0}}"#).expect(200)
            #expect(!jsonws.text.contains("\n"))
        }
    }

    @Test("jsonLayout lays out every JSON answer, JSON-WS and REST too, as the same document", arguments: SandboxJSONLayout.allCases)
    func everyAnswerInALayout(_ layout: SandboxJSONLayout) async throws {
        let entries = #"{"/bookmarks.bookmarksentry/get-entries":{"groupId":20143,"folderId":0,"start":0,"end":2}}"#
        let headless = "/o/headless-delivery/v1.0/sites/20143/structured-contents?pageSize=2"
        let asAPortal = try await withSandbox { client, _ in
            (try client.invoke(entries).expect(200).json(), try client.get(headless, headers: [TestHTTPClient.testUser]).expect(200).json())
        }
        try await withSandbox(.init { $0.jsonLayout = layout }) { client, _ in
            let jsonws = try client.invoke(entries).expect(200)
            let structured = try client.get(headless, headers: [TestHTTPClient.testUser]).expect(200)
            #expect(try jsonws.json() == asAPortal.0)
            #expect(try structured.json() == asAPortal.1)
            for text in [jsonws.text, structured.text] {
                switch layout {
                case .compact:
                    #expect(!text.contains("\n") && !text.contains(", \"") && !text.contains("\": "))
                case .spaced:
                    #expect(!text.contains("\n") && text.contains(", \"") && text.contains("\": "), "\(text.prefix(80))")
                case .pretty:
                    #expect(text.contains("\n  ") && text.contains("\": "), "\(text.prefix(80))")
                }
            }
        }
    }
}
