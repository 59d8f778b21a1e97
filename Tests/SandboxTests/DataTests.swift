import Foundation
@testable import Sandbox
import ScreensJSON
import Testing

@Suite("Sample data and its parsing")
struct DataTests {
    /// samples/portal, the committed symlink to Sources/Sandbox/Data.
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("samples/portal").path

    @Test("an explicit data directory is served (samples/portal)")
    func explicitDirectory() async throws {
        try await withSandbox(.init { $0.dataDirectory = Self.samples }) { client, _ in
            let count = try client.invoke(#"{"/bookmarks.bookmarksentry/get-entries-count":{"groupId":20144,"folderId":0}}"#).expect(200).json()
            #expect(count == 120)
        }
    }

    @Test("a missing data directory is a clear error, not a crash")
    func missingDirectory() async throws {
        let error = await #expect(throws: SandboxError.self) {
            try await SandboxServer.start(SandboxConfiguration(dataDirectory: "/nonexistent/sandbox-data"))
        }
        #expect(error?.message.contains("/nonexistent/sandbox-data") == true)
    }

    @Test("a broken data file names the file")
    func brokenFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-broken-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for file in try FileManager.default.contentsOfDirectory(atPath: Self.samples) where file.hasSuffix(".json") {
            try FileManager.default.copyItem(atPath: Self.samples + "/" + file, toPath: directory.appendingPathComponent(file).path)
        }
        try Data("[{\"groupId\": 1,".utf8).write(to: directory.appendingPathComponent("sites.json"))
        let error = #expect(throws: SandboxError.self) { try PortalData(directory: directory.path) }
        #expect(error?.message.contains("sites.json") == true)
    }

    @Test("every data file is valid JSON through ScreensBus and big ids stay exact")
    func dataFiles() throws {
        let data = try PortalData(directory: Self.samples)
        #expect(data.sites.keys.sorted() == [20143, 20144, 20145])
        #expect(data.bookmarks.values.flatMap(\.values).map(\.count).reduce(0, +) >= 250)
        #expect(data.bookmarks[20143]?[0]?.count == 73)
        #expect(data.articles.contains { $0.row["resourcePrimKey"] == .int(9_007_199_254_740_993) })
        #expect(data.assets.contains { $0.row["entryId"] == .int(9_007_199_254_740_993) })
        #expect(Set(data.assets.map(\.classNameId)).count == 4)
        #expect(data.articles.contains { $0.title.availableLocales == ["en_US"] })
        #expect(data.articles.contains { $0.title.availableLocales == ["en_US", "es_ES"] })
    }

    @Test("localized XML: default locale, fallback, entities, CDATA holding markup")
    func localizedXML() {
        let title = LocalizedXML.parseLocalized(
            #"<?xml version='1.0'?><root available-locales="en_US,es_ES" default-locale="en_US"><Title language-id="en_US">A &amp; &lt;B&gt;</Title><Title language-id="es_ES">Hola</Title></root>"#)
        #expect(title.text(for: "es_ES") == "Hola")
        #expect(title.text(for: "fr_FR") == "A & <B>")
        #expect(title.text(for: nil) == "A & <B>")
        #expect(LocalizedXML.parseLocalized("plain").text(for: "es_ES") == "plain")

        let fields = LocalizedXML.parseContent(
            #"<root available-locales="en_US" default-locale="en_US"><dynamic-element name="Body" type="text_area" index-type="text"><dynamic-content language-id="en_US"><![CDATA[<p>Hi</p> & more]]></dynamic-content></dynamic-element><dynamic-element name="Flag" type="boolean"><dynamic-content language-id="en_US"><![CDATA[true]]></dynamic-content></dynamic-element></root>"#)
        #expect(fields.map(\.name) == ["Body", "Flag"])
        #expect(fields.map(\.type) == ["text_area", "boolean"])
        #expect(fields[0].values.text(for: "es_ES") == "<p>Hi</p> & more")
        #expect(fields[1].values.text(for: nil) == "true")
    }

    @Test("Accept-Language to a Liferay locale id")
    func acceptLanguage() {
        #expect(StructuredContents.locale("es-ES") == "es_ES")
        #expect(StructuredContents.locale("es_ES") == "es_ES")
        #expect(StructuredContents.locale("es-MX,es;q=0.9,en;q=0.8") == "es_MX")
        #expect(StructuredContents.locale("*") == nil)
        #expect(StructuredContents.locale(nil) == nil)
    }

    @Test("query strings decode + and %XX; flattened parameters fold into objects")
    func parameters() throws {
        let query = QueryString("a=1&b=x+y%2Fz&a=2&empty")
        #expect(query["a"] == "2")
        #expect(query["b"] == "x y/z")
        #expect(query["empty"] == "")
        #expect(throws: InvalidQueryParameter.self) { try query.integer("b") }

        let params = ServiceParameters(["+q": "com.liferay.Q", "q.ids": "1,2", "q.flag": true, "n": "42", "obc": nil])
        #expect(params.object("q")?.className == "com.liferay.Q")
        #expect(try params.object("q")?.fields.longs("ids") == [1, 2])
        #expect(try params.object("q")?.fields.bool("flag") == true)
        #expect(try params.long("n") == 42)
        #expect(params.object("obc") == nil)
        #expect(throws: PortalError.self) { try params.long("missing") }
    }

    @Test("fault decisions depend only on the request number, the plan and the seed")
    func faultDecisions() {
        let plan = FaultPlan(failEvery: 3, resetEvery: 5, truncateEvery: 7, malformedEvery: 11, stallEvery: 13)
        let injector = FaultInjector(plan: plan, seed: 1)
        #expect(injector.action(forRequest: 1) == FaultAction.none)
        #expect(injector.action(forRequest: 3) == .fail)
        #expect(injector.action(forRequest: 15) == .reset)
        #expect(injector.action(forRequest: 7) == .truncate)
        #expect(injector.action(forRequest: 21) == .fail)
        #expect(injector.action(forRequest: 11) == .malformed)
        #expect(injector.action(forRequest: 13) == .stall)
        let numbered = (1...4).map { _ in injector.nextRequest().number }
        #expect(numbered == [1, 2, 3, 4])
    }
}
