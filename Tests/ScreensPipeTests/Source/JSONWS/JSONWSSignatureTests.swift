import Foundation
import Sandbox
import ScreensBus
import Testing

@testable import ScreensPipeCore
import ScreensPipe

/// The client's requests checked against the sandbox's table of real signatures
/// (``Sandbox/JSONWSSignatures``), with the portal's own matching rule: the one source of
/// truth both the sandbox and these tests use.
enum LiferaySignatures {
    /// The signature a `version` portal invokes for a command, or nil when it answers
    /// "No JSON web service action".
    static func match(
        service: String, params: JSONObject, version: LiferayVersion = .default
    ) -> ServiceSignature? {
        JSONWSActionMatcher(version: version).match(
            path: service, parameterNames: JSONWSActionMatcher.parameterNames(params.keys))
    }

    /// The parameter names a command gives, for messages.
    static func parameterNames(_ params: JSONObject) -> Set<String> {
        JSONWSActionMatcher.parameterNames(params.keys)
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

    /// Every command of pages 0 and 1 of every sample JSON-WS pipeline picks a real signature
    /// of the sandbox's default portal version, and the rows command's signature declares the
    /// paging parameters: an overload without them would answer every row on every page.
    @Test func everySamplePipelineCommandMatchesARealSignature() throws {
        var checked = 0
        for file in try Self.samplePipelines() {
            let spec = try PipelineLoader(environment: [:]).load(file: file)
            guard let jsonws = spec.source.type.settings(as: JSONWSSourceSpec.self) else { continue }
            // The request a run sends, through the wire format the source really uses.
            let blueprint = try SourceFactory.makeBlueprint(spec: spec, baseURL: "http://127.0.0.1:1")
            let pagination = SourceFactory.effectivePagination(for: spec.source)
            for index in 0...1 {
                let request = try #require(blueprint.plan(PageRequest(index: index, pagination: pagination)).first)
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
                        let signature = LiferaySignatures.match(service: service, params: params)
                        #expect(signature != nil, "\(file): \(service) with \(names) matches no real signature")
                        if let signature, jsonws.portletItem == nil, service == jsonws.rows.service {
                            for paging in [jsonws.startParam, jsonws.endParam] {
                                let declared = String(paging.split(separator: ".").first ?? "")
                                #expect(
                                    signature.parameterNames.contains(declared),
                                    "\(file): \(signature) ignores the paging parameter \(paging)")
                            }
                        }
                        checked += 1
                    }
                }
            }
        }
        // Four JSON-WS samples: rows and count on page 0, rows on page 1.
        #expect(checked >= 12)
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
