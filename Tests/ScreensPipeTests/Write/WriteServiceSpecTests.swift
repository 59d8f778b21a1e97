@testable import ScreensPipeCore
import ScreensPipe
import ScreensBus
import Testing

/// The `liferay` sink's services and transports: what each combination needs, and the
/// errors that say what is missing before anything is sent.
@Suite struct WriteServiceSpecTests {
    private func sink(_ lines: String) -> String {
        """
        name: w
        sink:
          type: liferay
          server: http://127.0.0.1:1
          group-id: 20143
        \(lines)
        """
    }

    private func errors(_ lines: String) -> String {
        do {
            _ = try loadPipeline(sink(lines))
            return ""
        } catch {
            return error.description
        }
    }

    /// Each refusal is a version without the command (Mobile SDK per-version services,
    /// the portal's master): see LiferayCompatibility's table of write commands.
    @Test func theVersionDecidesWhatCanBeWritten() throws {
        for version in ["7.1", "7.2", "7.3", "7.4"] {
            let message = errors("  service: ddl-record\n  record-set-id: 20501\n  liferay-version: \"\(version)\"")
            #expect(message.contains("registers no add-record with fieldsMap"), "\(version): \(message)")
        }
        for version in ["7.0", "7.1"] {
            let message = errors("  service: web-content\n  structure-key: NEWS-ARTICLE\n  liferay-version: \"\(version)\"")
            #expect(message.contains("registers add-article only in its 33- and 36-parameter forms"), "\(version): \(message)")
            #expect(errors("  service: web-content\n  transport: headless\n  content-structure-id: 1\n  liferay-version: \"\(version)\"").contains("headless-delivery ships with Liferay 7.2"))
        }
        #expect(errors("  service: web-content\n  structure-key: NEWS-ARTICLE\n  liferay-version: \"7.4\"").contains("ddmStructureId"))
        let v74 = try loadPipeline(sink("  service: web-content\n  content-structure-id: 20701\n  liferay-version: \"7.4\""))
        #expect(v74.sink.liferay?.portalVersion == .v7_4)
        #expect(try loadPipeline(sink("  service: bookmark")).sink.liferay?.portalVersion == .v7_2, "7.2 unless the sink says")
        for version in PortalVersion.allCases {
            #expect(errors("  service: bookmark\n  liferay-version: \"\(version.rawValue)\"") == "", "bookmarks on every version")
        }
        #expect(errors("  service: bookmark\n  liferay-version: \"6.2\"").contains("liferay-version"))
    }

    @Test func bookmarksHaveNoHeadlessAPI() {
        #expect(errors("  service: bookmark\n  transport: headless").contains("Liferay has no headless API for bookmarks"))
    }

    @Test func webContentTakesEitherTransportWithItsOwnKeys() throws {
        let headless = try loadPipeline(sink("  service: web-content\n  transport: headless\n  content-structure-id: 20701"))
        #expect(headless.sink.liferay?.key == ["title"])
        #expect(headless.sink.liferay?.contentStructureId == 20701)
        let jsonws = try loadPipeline(sink("  service: web-content\n  structure-key: NEWS-ARTICLE\n  key: [friendlyUrlPath]"))
        #expect(jsonws.sink.liferay?.structureKey == "NEWS-ARTICLE")
        #expect(jsonws.sink.liferay?.key == ["friendlyUrlPath"])
        #expect(errors("  service: web-content\n  transport: headless\n  folder-id: 3").contains("structuredContentFolderId"))
        #expect(errors("  service: web-content\n  key: [url]").contains("found 'url'"))
        #expect(errors("  service: bookmark\n  structure-key: X").contains("'structure-key' and 'template-key' are for"))
    }

    @Test func ddlRecordsNeedTheirList() throws {
        #expect(errors("  service: ddl-record").contains("needs 'record-set-id'"))
        #expect(errors("  service: ddl-record\n  record-set-id: 20501\n  transport: headless").contains("transport: jsonws"))
        let spec = try loadPipeline(sink("  service: ddl-record\n  liferay-version: \"7.0\"\n  record-set-id: 20501\n  key: [email]"))
        #expect(spec.sink.liferay?.recordSetId == 20501)
        #expect(spec.sink.liferay?.key == ["email"])
    }

    @Test func aDeclaredCommandMapsRowFieldsAndConstants() throws {
        let spec = try loadPipeline(
            sink(
                """
                  service: custom
                  command: /bookmarks.bookmarksentry/add-entry
                  fields: { groupId: 20143, name: row.title, url: row.link.href, visible: null, note: "row.x" }
                  optional: [name]
                """))
        let declared = try #require(spec.sink.liferay?.declared)
        #expect(declared.command == "/bookmarks.bookmarksentry/add-entry")
        #expect(declared.parameters.map(\.name) == ["groupId", "name", "url", "visible", "note"])
        #expect(declared.parameters[0].value == .constant(.int(20143)))
        #expect(declared.parameters[1] == .init(name: "name", value: .row(["title"]), optional: true))
        #expect(declared.parameters[2].value == .row(["link", "href"]))
        #expect(declared.parameters[3].value == .constant(.null))
        #expect(declared.parameters[4].value == .constant(.string("row.x")), "a quoted value is a constant")
        #expect(spec.sink.liferay?.key == ["groupId", "name", "url", "visible", "note"])
    }

    @Test func aDeclaredNullServiceContextIsRefused() {
        let message = errors("  service: custom\n  command: /a.b/c\n  fields: { a: row.a, serviceContext: null }")
        #expect(message.contains("'serviceContext: null'"), "\(message)")
        #expect(message.contains("leave it out"))
    }

    @Test func aDeclaredCommandSaysWhatIsWrong() {
        #expect(errors("  service: custom\n  fields: { a: row.a }").contains("'command'"))
        #expect(errors("  service: custom\n  command: add-thing\n  fields: { a: row.a }").contains("is a JSON-WS path"))
        #expect(errors("  service: custom\n  command: /a.b/c\n  fields: [a]").contains("'fields' maps parameter names"))
        #expect(errors("  service: custom\n  command: /a.b/c\n  fields: { a: row. }").contains("is not a row field"))
        #expect(errors("  service: custom\n  command: /a.b/c\n  fields: { a: row.a }\n  optional: [b]").contains("'optional' names 'b'"))
        #expect(errors("  service: custom\n  command: /a.b/c\n  fields: { a: row.a }\n  key: [b]").contains("found 'b'"))
        #expect(errors("  service: bookmark\n  command: /a.b/c").contains("'command' is for 'service: custom'"))
    }

    @Test func aDeclaredRowNeedsEveryRequiredParameter() throws {
        let spec = try loadPipeline(
            sink("  service: custom\n  command: /a.b/c\n  fields: { id: 7, name: row.n, note: row.meta.note }\n  optional: [note]\n  key: [name]"))
        let model = DeclaredServiceModel(spec: try #require(spec.sink.liferay), service: try #require(spec.sink.liferay?.declared))
        let row = try model.row(["n": "x", "meta": ["note": "y"]], line: 1)
        #expect(row.params == ["id": .int(7), "name": "x", "note": "y"])
        #expect(try model.row(["n": "x"], line: 2).params["note"] == .null)
        #expect(throws: RowRejection.self) { try model.row(["meta": ["note": "y"]], line: 3) }
        #expect(throws: RowRejection.self) { try model.row(["x"], line: 4) }
    }

    @Test("a web content row's content is read with the converter's XML reader: fields with entities and CDATA, nested ones; an unreadable document is a reject")
    func webContentDocumentsAreReadNotScanned() throws {
        let spec = try loadPipeline(sink("  service: web-content\n  structure-key: NEWS-ARTICLE"))
        let model = WebContentWriteModel(spec: try #require(spec.sink.liferay))
        let document = #"<?xml version="1.0"?><root default-locale="en_US"><dynamic-element name="Body"><dynamic-content language-id="en_US">A &amp; B &#233;</dynamic-content><dynamic-element name="Note"><dynamic-content language-id="en_US"><![CDATA[<b>x</b>]]></dynamic-content></dynamic-element></dynamic-element></root>"#
        let row = try model.row(["title": "T", "content": .string(document)], line: 1)
        #expect(row.fields == [.init(name: "Body", data: "A & B é"), .init(name: "Note", data: "<b>x</b>")])
        #expect(try ArticleXMLText.fields(row.contentXML) == row.fields)
        #expect(try model.row(["title": "T"], line: 2).fields.isEmpty)
        #expect(throws: RowRejection.self) { try model.row(["title": "T", "content": "<root><dynamic-element name=\"Body\">"], line: 3) }
        #expect(ArticleXMLText.localized(#"<root default-locale="en_US"><Title language-id="es_ES">Hola</Title><Title language-id="en_US">Hi &amp; bye</Title></root>"#, locale: "en_US") == "Hi & bye")
        #expect(ArticleXMLText.localized("plain", locale: "en_US") == "plain")
    }
}
