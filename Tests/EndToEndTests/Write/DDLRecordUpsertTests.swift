import Foundation
import Sandbox
import ScreensBus
import Testing

/// `service: ddl-record` adds a record, or updates the one a row names by `recordId`, as
/// DDL Form Screenlet's `Liferay70DDLFormSubmitConnector` submits a form: `add-record`
/// without a record id, `update-record(recordId, displayIndex, fieldsMap, mergeFields)`
/// with one. Read back with `get-ddl-records` through the binary.
@Suite("write: DDL records added or updated by recordId")
struct DDLRecordUpsertTests {
    // The record updated is one this test added: updating a record of the bundled data
    // in an in-process sandbox showed every stored record with its recordId (reported, not
    // fixed here).
    @Test("a row with recordId updates that record once, a row without adds one; an unknown record is the portal's refusal; a rerun sends nothing")
    func upsertByRecordId() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        let input = try workspace.save(
            "records.jsonl",
            [
                #"{"name":"Brand New","email":"brand.new@example.com","phone":"+34 2","vip":true,"score":2}"#,
                #"{"recordId":424242,"name":"Nobody","email":"nobody@example.com"}"#,
                #"{"recordId":-1,"name":"Negative","email":"negative@example.com"}"#,
                #"{"recordId":70002}"#,
            ].joined(separator: "\n") + "\n")
        try await withConfiguredSandbox({ $0.liferayVersion = .v7_0 }) { harness in
            let server = harness.server.baseURL
            let pipeline = try workspace.servicePipeline(
                server: server, service: "ddl-record", extra: "  liferay-version: \"7.0\"\n  record-set-id: 20501\n  key: [email]\n  batch-size: 2")
            let result = try await workspace.write(pipeline, ["--input", input])
            #expect(result.status == 1, "three rows rejected: \(result.stderr)")
            let results = try result.jsonLines()
            #expect(results.filter { $0["outcome"] != "rejected" }.map { $0["outcome"]?.stringValue } == ["created"])
            let recordId = try #require(results.first?["recordId"]?.int64Value)
            let rejects = try workspace.rejects().sorted { ($0["line"]?.int64Value ?? 0) < ($1["line"]?.int64Value ?? 0) }
            #expect(rejects.map { $0["line"]?.int64Value } == [2, 3, 4])
            #expect(rejects[0]["reason"]?.stringValue?.contains("NoSuchRecordException") == true)
            #expect(rejects[1]["reason"]?.stringValue?.contains("'recordId' must be a record id") == true)
            #expect(rejects[2]["reason"]?.stringValue?.contains("at least one field") == true)
            #expect(try await workspace.readBackRecords(server: server).filter { $0["modelValues"]?["email"] == "nobody@example.com" }.isEmpty)

            let row = #"{"recordId":\#(recordId),"name":"Brand Renamed","email":"brand.new@example.com","phone":"+34 3","vip":false,"score":10}"#
            let upsert = try workspace.save("upsert.jsonl", row + "\n")
            let updated = try await workspace.write(pipeline, ["--input", upsert])
            #expect(updated.status == 0, "stderr: \(updated.stderr)")
            #expect(try updated.jsonLines().map { $0["outcome"]?.stringValue } == ["updated"])
            #expect(try updated.jsonLines().first?["recordId"]?.int64Value == recordId)
            let records = try await workspace.readBackRecords(server: server)
            let brand = records.filter { $0["modelValues"]?["email"] == "brand.new@example.com" }
            #expect(brand.count == 1, "updated in place, never added")
            #expect(brand.first?["modelAttributes"]?["recordId"]?.int64Value == recordId)
            #expect(brand.first?["modelValues"]?["name"] == "Brand Renamed")
            #expect(brand.first?["modelValues"]?["score"] == .int(10))

            let requests = harness.server.requestCount
            let rerun = try await workspace.write(pipeline, ["--input", upsert])
            #expect(rerun.status == 0, "stderr: \(rerun.stderr)")
            #expect(try rerun.jsonLines().map { $0["outcome"]?.stringValue } == ["unchanged"])
            #expect(harness.server.requestCount == requests, "the journal answers a rerun: nothing is sent")

            let changed = try workspace.save("changed.jsonl", row.replacingOccurrences(of: "Brand Renamed", with: "Brand Again") + "\n")
            let again = try await workspace.write(pipeline, ["--input", changed])
            #expect(again.status == 0, "stderr: \(again.stderr)")
            #expect(try again.jsonLines().map { $0["outcome"]?.stringValue } == ["updated"])
            let after = try await workspace.readBackRecords(server: server).filter { $0["modelValues"]?["email"] == "brand.new@example.com" }
            #expect(after.count == 1)
            #expect(after.first?["modelValues"]?["name"] == "Brand Again")
        }
    }

    @Test("a delete row removes its record by recordId or by its key fields, once; a record the portal does not have is rejected without a request")
    func deleteRecords() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        let adds = try workspace.save(
            "adds.jsonl", #"{"name":"Gone Soon","email":"gone.soon@example.com"}"# + "\n" + #"{"name":"Gone Too","email":"gone.too@example.com"}"# + "\n")
        try await withConfiguredSandbox({ $0.liferayVersion = .v7_0 }) { harness in
            let server = harness.server.baseURL
            let pipeline = try workspace.servicePipeline(
                server: server, service: "ddl-record", extra: "  liferay-version: \"7.0\"\n  record-set-id: 20501\n  key: [email]\n  batch-size: 10")
            let added = try await workspace.write(pipeline, ["--input", adds])
            #expect(added.status == 0, "stderr: \(added.stderr)")
            let ids = try added.jsonLines().compactMap { $0["recordId"]?.int64Value }
            #expect(ids.count == 2)
            let before = try await workspace.readBackRecords(server: server).count

            let deletes = try workspace.save(
                "deletes.jsonl", #"{"op":"delete","recordId":\#(ids[0])}"# + "\n" + #"{"op":"delete","email":"gone.too@example.com"}"# + "\n")
            let deleted = try await workspace.write(pipeline, ["--input", deletes])
            #expect(deleted.status == 0, "stderr: \(deleted.stderr)")
            let results = try deleted.jsonLines()
            #expect(results.map { $0["outcome"]?.stringValue } == ["deleted", "deleted"])
            #expect(results.map { $0["recordId"]?.int64Value } == ids, "each record by its id: the row's, then the lookup's by email")
            #expect(results.allSatisfy { $0["op"] == "delete" })
            let after = try await workspace.readBackRecords(server: server)
            #expect(after.count == before - 2)
            #expect(after.allSatisfy { $0["modelValues"]?["email"]?.stringValue?.hasPrefix("gone.") != true })

            let requests = harness.server.requestCount
            let again = try await workspace.write(pipeline, ["--input", deletes])
            #expect(again.status == 0, "stderr: \(again.stderr)")
            #expect(try again.jsonLines().map { $0["outcome"]?.stringValue } == ["unchanged", "unchanged"])
            #expect(harness.server.requestCount == requests, "the journal answers: nothing is sent")

            // A record no journal knows and the portal does not have: rejected, never sent.
            let unknown = try workspace.save("unknown.jsonl", #"{"op":"delete","recordId":424242}"# + "\n")
            let refused = try await workspace.write(pipeline, ["--input", unknown])
            #expect(refused.status == 1, "stderr: \(refused.stderr)")
            let reason = try workspace.rejects().last?["reason"]?.stringValue
            #expect(reason?.contains("nothing to delete") == true, "\(reason ?? "no reject")")
            #expect(try await workspace.readBackRecords(server: server).count == before - 2)
        }
    }
}
