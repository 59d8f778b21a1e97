import Foundation
import ScreensBus
import Testing

@testable import ScreensPipe

/// One remote service method as the portal declares it: JSON-WS picks an action only when
/// the request names every one of its parameters.
struct ServiceSignature: Sendable {
    let path: String
    let parameters: [String]
    /// Where the declaration is: repository and file.
    let source: String
}

/// The real signatures of the services the sample pipelines call (Liferay 7.0-7.2 and the
/// Screens portal module), taken from the portal's and Screens' service interfaces.
enum LiferaySignatures {
    static let all: [ServiceSignature] = [
        ServiceSignature(
            path: "/bookmarks.bookmarksentry/get-entries", parameters: ["groupId", "folderId", "start", "end"],
            source: "liferay/liferay-portal modules/apps/bookmarks/bookmarks-api/.../BookmarksEntryService.java"),
        ServiceSignature(
            path: "/bookmarks.bookmarksentry/get-entries-count", parameters: ["groupId", "folderId"],
            source: "liferay/liferay-portal modules/apps/bookmarks/bookmarks-api/.../BookmarksEntryService.java"),
        ServiceSignature(
            path: "/journal.journalarticle/get-articles", parameters: ["groupId", "folderId", "start", "end", "obc"],
            source: "liferay/liferay-portal modules/apps/journal/journal-api/.../JournalArticleService.java (7.0-7.2)"),
        ServiceSignature(
            path: "/journal.journalarticle/get-articles-count", parameters: ["groupId", "folderId"],
            source: "liferay/liferay-portal modules/apps/journal/journal-api/.../JournalArticleService.java"),
        ServiceSignature(
            path: "/screens.screensassetentry/get-asset-entries", parameters: ["assetEntryQuery", "locale"],
            source: "liferay/liferay-screens portal/.../com/liferay/screens/service/ScreensAssetEntryService.java"),
        ServiceSignature(
            path: "/screens.screensassetentry/get-asset-entries",
            parameters: ["companyId", "groupId", "portletItemName", "locale", "max"],
            source: "liferay/liferay-screens portal/.../com/liferay/screens/service/ScreensAssetEntryService.java"),
        ServiceSignature(
            path: "/classname/fetch-class-name", parameters: ["value"],
            source: "liferay/liferay-central-test-2 portal-kernel/src/com/liferay/portal/kernel/service/ClassNameService.java @62af6baa90917dd4f6f74c6e066c5877d7658484"),
        ServiceSignature(
            path: "/assetentry/get-entries-count", parameters: ["entryQuery"],
            source: "liferay/liferay-portal portal-kernel/.../asset/kernel/service/AssetEntryService.java"),
        ServiceSignature(
            path: "/screens.screensddlrecord/get-ddl-records",
            parameters: ["ddlRecordSetId", "locale", "start", "end", "obc"],
            source: "liferay/liferay-screens portal/.../com/liferay/screens/service/ScreensDDLRecordService.java"),
        ServiceSignature(
            path: "/screens.screensddlrecord/get-ddl-records-count", parameters: ["ddlRecordSetId"],
            source: "liferay/liferay-screens portal/.../com/liferay/screens/service/ScreensDDLRecordService.java"),
    ]

    /// The parameter names a JSON-WS command gives: `+name` and `name.field` both name `name`.
    static func parameterNames(_ params: JSONObject) -> Set<String> {
        Set(params.keys.map { key in
            let name = key.hasPrefix("+") ? String(key.dropFirst()) : key
            return name.split(separator: ".", maxSplits: 1).first.map(String.init) ?? name
        })
    }

    /// The signature the portal would pick for a command, or nil when it would answer "no action".
    static func match(service: String, params: JSONObject) -> ServiceSignature? {
        let given = parameterNames(params)
        return all.first { $0.path == service && Set($0.parameters).isSubset(of: given) }
    }
}

@Suite struct JSONWSSignatureTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func samplePipelines() throws -> [String] {
        let directory = packageRoot.appendingPathComponent("pipelines").path
        return try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasSuffix(".yaml") }.sorted().map { "\(directory)/\($0)" }
    }

    @Test func everySamplePipelineCommandMatchesARealSignature() throws {
        var checked = 0
        for file in try Self.samplePipelines() {
            let spec = try PipelineLoader(environment: [:]).load(file: file)
            guard spec.source.type.settings(as: JSONWSSourceSpec.self) != nil else { continue }
            // The request a run sends, through the wire format the source really uses.
            let blueprint = try SourceFactory.makeBlueprint(spec: spec, baseURL: "http://127.0.0.1:1")
            let pagination = SourceFactory.effectivePagination(for: spec.source)
            let request = try #require(blueprint.plan(PageRequest(index: 0, pagination: pagination)).first)
            let batch = try JSONValue(parsing: Array((request.body ?? "").utf8))
            guard case .array(let commands) = batch else {
                Issue.record("\(file): the batch is not an array")
                continue
            }
            for case .object(let command) in commands {
                for (service, value) in command {
                    guard case .object(let params) = value else {
                        Issue.record("\(file): \(service) has no parameter object")
                        continue
                    }
                    let names = LiferaySignatures.parameterNames(params).sorted()
                    #expect(
                        LiferaySignatures.match(service: service, params: params) != nil,
                        "\(file): \(service) with \(names) matches no real signature")
                    checked += 1
                }
            }
        }
        #expect(checked >= 8)
    }

    @Test func aCommandMissingAParameterMatchesNothing() {
        // The DDL records service without `obc`, as the client used to send it.
        #expect(
            LiferaySignatures.match(
                service: "/screens.screensddlrecord/get-ddl-records",
                params: ["ddlRecordSetId": 1, "locale": "en_US", "start": 0, "end": 10]) == nil)
        // The Screens asset service with the count service's parameter name.
        #expect(
            LiferaySignatures.match(
                service: "/screens.screensassetentry/get-asset-entries",
                params: ["+entryQuery": "x", "entryQuery.groupIds": 1, "locale": "en_US"]) == nil)
        #expect(
            LiferaySignatures.match(
                service: "/screens.screensddlrecord/get-ddl-records",
                params: ["ddlRecordSetId": 1, "locale": "en_US", "start": 0, "end": 10, "obc": .null]) != nil)
    }
}
