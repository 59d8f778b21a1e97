import Foundation
@testable import Sandbox
import ScreensJSON
import Testing

/// Record set 20501 "Contacts" has a document field, `photo`: `add-record` and
/// `update-record` take for it only the JSON text naming a file entry of the site by uuid
/// and group, as DDL Form Screenlet writes it after its upload, and refuse anything else.
@Suite("Sandbox: a DDL record's document field")
struct DDLDocumentFieldTests {
    /// Stored file entry 90001 of site 20143.
    static let stored = #"{\"groupId\":20143,\"uuid\":\"fe1b1434-3b10-4980-950c-aef9618a9261\",\"version\":\"1.0\"}"#

    static func add(_ photo: String) -> String {
        #"{"/ddl.ddlrecord/add-record":{"groupId":20143,"recordSetId":20501,"displayIndex":0,"fieldsMap":{"name":"P","email":"p@example.com","photo":\#(photo)}}}"#
    }

    @Test("a value naming no file entry, of another group, or not JSON is refused; one naming an entry is stored and listed")
    func refusesWhatNamesNoEntry() async throws {
        try await withSandbox(.init { $0.liferayVersion = .v7_0 }) { client, _ in
            let unknown = #""{\"groupId\":20143,\"uuid\":\"00000000-0000-4000-8000-000000000000\",\"version\":\"1.0\"}""#
            let otherGroup = #""{\"groupId\":20144,\"uuid\":\"fe1b1434-3b10-4980-950c-aef9618a9261\",\"version\":\"1.0\"}""#
            for value in [unknown, otherGroup, #""{\"groupId\":20143}""#] {
                let body = try client.invoke(Self.add(value)).expect(404).json()
                #expect(body["error"]?["type"] == "com.liferay.document.library.kernel.exception.NoSuchFileEntryException", "\(value)")
            }
            for value in [#""photos/ana.png""#, "true", "42"] {
                let body = try client.invoke(Self.add(value)).expect(500).json()
                let type = body["error"]?["type"]?.stringValue ?? ""
                #expect(type == "com.liferay.dynamic.data.mapping.form.field.type.DDMFormFieldValueValidationException", "\(value): \(type)")
            }
            let added = try client.invoke(Self.add("\"\(Self.stored)\"")).expect(200).json()
            let recordId = try #require(added["recordId"]?.int64Value)
            let list = try client.invoke(
                #"{"/screens.screensddlrecord/get-ddl-records":{"ddlRecordSetId":20501,"locale":"en_US","start":-1,"end":-1,"obc":null}}"#
            ).expect(200).json()
            let record = list.arrayValue?.first { $0["modelAttributes"]?["recordId"]?.int64Value == recordId }
            let photo = try #require(record?["modelValues"]?["photo"]?.stringValue)
            #expect(try JSONValue(parsing: Array(photo.utf8))["uuid"] == "fe1b1434-3b10-4980-950c-aef9618a9261")
            let update = #"{"/ddl.ddlrecord/update-record":{"recordId":\#(recordId),"displayIndex":0,"fieldsMap":{"name":"P","photo":"{\"uuid\":\"nope\",\"groupId\":20143}"},"mergeFields":false}}"#
            #expect(try client.invoke(update).expect(404).json()["error"]?["type"] == "com.liferay.document.library.kernel.exception.NoSuchFileEntryException")
        }
    }
}
