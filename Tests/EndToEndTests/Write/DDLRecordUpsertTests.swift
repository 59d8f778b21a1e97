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
    @Test("a row with recordId updates that record once, a row without adds one; an unknown record is the portal's refusal; a rerun sends nothing")
    func upsertByRecordId() async throws {
        let workspace = try WriteWorkspace()
        defer { workspace.remove() }
        let rows = [
            #"{"recordId":70001,"name":"Ana Updated","email":"ana1@example.com","phone":"+34 1","vip":false,"score":10}"#,
            #"{"name":"Brand New","email":"brand.new@example.com","phone":"+34 2","vip":true,"score":2}"#,
        ]
        let input = try workspace.save(
            "records.jsonl",
            (rows + [
                #"{"recordId":424242,"name":"Nobody","email":"nobody@example.com"}"#,
                #"{"recordId":-1,"name":"Negative","email":"negative@example.com"}"#,
                #"{"recordId":70002}"#,
            ]).joined(separator: "\n") + "\n")
        try await withConfiguredSandbox({ $0.liferayVersion = .v7_0 }) { harness in
            let server = harness.server.baseURL
            let pipeline = try workspace.servicePipeline(
                server: server, service: "ddl-record", extra: "  liferay-version: \"7.0\"\n  record-set-id: 20501\n  key: [email]\n  batch-size: 2")
            let result = try await workspace.write(pipeline, ["--input", input])
            #expect(result.status == 1, "three rows rejected: \(result.stderr)")
            let results = try result.jsonLines()
            #expect(results.filter { $0["outcome"] != "rejected" }.map { $0["outcome"]?.stringValue } == ["updated", "created"])
            #expect(results.first?["recordId"] == .int(70001))
            let rejects = try workspace.rejects().sorted { ($0["line"]?.int64Value ?? 0) < ($1["line"]?.int64Value ?? 0) }
            #expect(rejects.map { $0["line"]?.int64Value } == [3, 4, 5])
            #expect(rejects[0]["reason"]?.stringValue?.contains("NoSuchRecordException") == true)
            #expect(rejects[1]["reason"]?.stringValue?.contains("'recordId' must be a record id") == true)
            #expect(rejects[2]["reason"]?.stringValue?.contains("at least one field") == true)

            let records = try await workspace.readBackRecords(server: server)
            // The sample list repeats emails; the record is found by its id.
            let ana = records.filter { $0["modelAttributes"]?["recordId"] == .int(70001) }
            #expect(ana.count == 1)
            #expect(records.filter { $0["modelValues"]?["name"] == "Ana Updated" }.count == 1, "updated in place, never added")
            #expect(ana.first?["modelValues"]?["name"] == "Ana Updated")
            #expect(ana.first?["modelValues"]?["score"] == .int(10))
            #expect(records.filter { $0["modelValues"]?["email"] == "brand.new@example.com" }.count == 1)
            #expect(!records.contains { $0["modelValues"]?["email"] == "nobody@example.com" })

            let requests = harness.server.requestCount
            let again = try workspace.save("again.jsonl", rows.joined(separator: "\n") + "\n")
            let rerun = try await workspace.write(pipeline, ["--input", again])
            #expect(rerun.status == 0, "stderr: \(rerun.stderr)")
            #expect(try rerun.jsonLines().allSatisfy { $0["outcome"] == "unchanged" })
            #expect(harness.server.requestCount == requests, "the journal answers a rerun: nothing is sent")

            let changed = try workspace.save("changed.jsonl", #"{"recordId":70001,"name":"Ana Again","email":"ana1@example.com","phone":"+34 1","vip":true,"score":11}"# + "\n")
            let update = try await workspace.write(pipeline, ["--input", changed])
            #expect(update.status == 0, "stderr: \(update.stderr)")
            #expect(try update.jsonLines().map { $0["outcome"]?.stringValue } == ["updated"])
            let after = try await workspace.readBackRecords(server: server).filter { $0["modelAttributes"]?["recordId"] == .int(70001) }
            #expect(after.first?["modelValues"]?["name"] == "Ana Again")
            #expect(after.first?["modelValues"]?["vip"] == .bool(true))
        }
    }
}
