import Foundation
import Sandbox
import ScreensBus
import Testing

/// Every write request the sample pipelines send, per portal version, compared with the
/// signatures Liferay itself defines; the table below is written from Liferay's sources,
/// not from the sandbox (`LiferayCompatibility` lists the same lines):
///
/// - add-entry: liferay/liferay-mobile-sdk@caf46e7e, android/services-v7, v71, v72, v73
///   `bookmarksentry/BookmarksEntryService.java`;
/// - add-article 7.2, 7.3: the same SDK's services-v72 and v73 `JournalArticleService.java`;
///   7.4: liferay/liferay-portal@eb65aa60
///   `modules/apps/journal/journal-api/.../JournalArticleService.java`;
/// - add-record: services-v7 `ddlrecord/DDLRecordService.java` (no fieldsMap add-record
///   in v71-v73, nor in the portal's master).
///
/// `serviceContext` is declared by each, and sent by none: JSON-WS gives every command the
/// request's own.
@Suite("write: the sample pipelines' requests against Liferay's own signatures, per version")
struct SampleWriteRequestTests {
    /// The parameters each command declares, `serviceContext` left out, by version; a
    /// version missing from a line has no such command.
    static let liferaySignatures: [String: [LiferayVersion: Set<String>]] = [
        "/bookmarks.bookmarksentry/add-entry": Dictionary(
            uniqueKeysWithValues: LiferayVersion.allCases.map { ($0, Set(["groupId", "folderId", "name", "url", "description"])) }),
        "/journal.journalarticle/add-article": [
            .v7_2: ["groupId", "folderId", "titleMap", "descriptionMap", "content", "ddmStructureKey", "ddmTemplateKey"],
            .v7_3: ["groupId", "folderId", "titleMap", "descriptionMap", "content", "ddmStructureKey", "ddmTemplateKey"],
            .v7_4: ["externalReferenceCode", "groupId", "folderId", "titleMap", "descriptionMap", "content", "ddmStructureId", "ddmTemplateKey"],
        ],
        "/ddl.ddlrecord/add-record": [.v7_0: ["groupId", "recordSetId", "displayIndex", "fieldsMap"]],
    ]

    /// A sample pipeline, its input, and the command its rows become.
    struct Sample: Sendable, CustomTestStringConvertible {
        var pipeline: String
        var input: String?
        var command: String
        var testDescription: String { pipeline }
    }

    static let samples = [
        Sample(pipeline: "pipelines/import-bookmarks.yaml", input: nil, command: "/bookmarks.bookmarksentry/add-entry"),
        Sample(pipeline: "pipelines/import-links.yaml", input: "samples/offline/links.jsonl", command: "/bookmarks.bookmarksentry/add-entry"),
        Sample(pipeline: "pipelines/import-web-content-jsonws.yaml", input: "samples/offline/web-content.jsonl", command: "/journal.journalarticle/add-article"),
        Sample(pipeline: "pipelines/import-ddl-records.yaml", input: "samples/offline/contacts.jsonl", command: "/ddl.ddlrecord/add-record"),
    ]

    @Test("each sample's JSON-WS writes name exactly the parameters Liferay declares for the version, and that version's portal takes them; a version without the command is refused before any request",
          arguments: samples)
    func jsonwsSamples(_ sample: Sample) async throws {
        let root = CommandRunner.packageRoot
        for version in LiferayVersion.allCases {
            let workspace = try WriteWorkspace()
            defer { workspace.remove() }
            try await withConfiguredSandbox({ $0.liferayVersion = version }) { harness in
                var environment = workspace.environment
                environment["LIFERAY_SERVER"] = harness.server.baseURL
                environment["LIFERAY_VERSION"] = version.rawValue
                // The DDL sample names its one version itself; saved elsewhere, it is given its
                // rows with --input (its source's path is relative to the sample).
                var pipeline = root.appendingPathComponent(sample.pipeline).path
                if sample.command == "/ddl.ddlrecord/add-record" {
                    let text = try String(contentsOfFile: pipeline, encoding: .utf8)
                        .replacingOccurrences(of: #"liferay-version: "7.0""#, with: #"liferay-version: "\#(version.rawValue)""#)
                    pipeline = try workspace.save("ddl.yaml", text)
                }
                var arguments = ["write", pipeline]
                if let input = sample.input { arguments += ["--input", root.appendingPathComponent(input).path] }
                let expected = Self.liferaySignatures[sample.command]?[version]
                let dry = try await CommandRunner.run(arguments + ["--dry-run", "--rejects", workspace.path("dry.jsonl")], environment: environment)
                guard let expected else {
                    #expect(dry.status != 0, "\(version): \(sample.command) does not exist there")
                    #expect(dry.stderr.contains("liferay-version: \(version.rawValue)"), "\(version): \(dry.stderr)")
                    #expect(harness.server.requestCount == 0, "nothing is sent")
                    return
                }
                #expect(dry.status == 0, "\(version): \(dry.stderr)")
                let commands = try dry.jsonLines().filter { $0["event"] == "custom" && $0["name"] == "request" }
                    .flatMap { $0["payload"]?["body"]?.arrayValue ?? [] }
                #expect(!commands.isEmpty)
                for command in commands {
                    let (path, params) = try #require(command.objectValue?.first)
                    #expect(path == sample.command, "\(version)")
                    #expect(Set(params.objectValue?.keys ?? []) == expected, "\(version): \(path) \(params.jsonString.prefix(300))")
                }
                let written = try await CommandRunner.run(arguments + ["--rejects", workspace.path("rejects.jsonl")], environment: environment)
                #expect(written.status == 0, "\(version): the \(version) portal takes them: \(written.stderr)")
            }
        }
    }
}
