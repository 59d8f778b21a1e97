import Foundation
import ScreensBus
import Testing

/// The fallback through the real binary: the server goes away between two runs; the second
/// run says so on stderr (without -v) with the cached list's age, and every `response` event
/// says where its rows came from and when they were fetched.
@Suite("run: cache fallback is visible")
struct CacheFallbackRunTests {
    @Test func fallbackWarnsOnceWithTheAgeAndEventsCarryOriginAndFetchTime() async throws {
        let portal = try RecordingServer(host: "127.0.0.1") { target in
            let offset = Int(target.split(separator: "offset=").last?.prefix { $0.isNumber } ?? "0") ?? 0
            let items = (offset..<min(offset + 3, 7)).map { #"{"id":\#($0)}"# }.joined(separator: ",")
            return .init(body: #"{"items":[\#(items)],"total":7}"#)
        }
        let directory = try CommandRunner.temporaryDirectory()
        let file = directory.appendingPathComponent("p.yaml").path
        try """
            name: fallback
            source:
              type: rest
              server: \(portal.origin)
              url: /items
              records: items
              total: total
              paginate: offset
              pagination: { first-page-size: 3, page-size: 3 }
              retry: { attempts: 1 }
            cache: { policy: remote-first, path: \(directory.appendingPathComponent("cache.sqlite").path) }
            """.write(toFile: file, atomically: true, encoding: .utf8)

        let online = try await CommandRunner.run(["run", file, "--events"])
        #expect(online.status == 0, "stderr: \(online.stderr)")
        let onlineResponses = try online.stdoutLines.map { try JSONValue(parsing: $0) }.filter { $0["event"] == "response" }
        #expect(onlineResponses.count == 3)
        #expect(onlineResponses.allSatisfy { $0["origin"] == "remote" && $0["fetchedAt"]?.stringValue?.hasSuffix("Z") == true })
        #expect(!online.stderr.contains("warning"))

        try await portal.stopRefusing()
        let offline = try await CommandRunner.run(["run", file, "--events"])
        #expect(offline.status == 0, "stderr: \(offline.stderr)")
        let events = try offline.stdoutLines.map { try JSONValue(parsing: $0) }
        let responses = events.filter { $0["event"] == "response" }
        #expect(responses.count == 3)
        #expect(responses.allSatisfy { $0["origin"] == "cache" })
        // The cached pages keep the time they were fetched in the first run.
        #expect(responses.map { $0["fetchedAt"] } == onlineResponses.map { $0["fetchedAt"] })
        #expect(events.filter { $0["event"] == "selected" }.count == 7)
        let warnings = offline.stderr.split(separator: "\n").filter { $0.contains("warning") }
        #expect(warnings.count == 1, "stderr: \(offline.stderr)")
        #expect(warnings.first?.contains("delivering the list cached") == true, "stderr: \(offline.stderr)")
        #expect(warnings.first?.contains(" s ago") == true || warnings.first?.contains(" min ago") == true)
    }

    /// `cache-and-remote` announces each cached page, then delivers the fresh one: two
    /// `response` events per page, every row selected once.
    @Test func cacheAndRemoteAnnouncesThenDeliversEachRowOnce() async throws {
        let portal = try RecordingServer(host: "127.0.0.1") { target in
            let offset = Int(target.split(separator: "offset=").last?.prefix { $0.isNumber } ?? "0") ?? 0
            let items = (offset..<min(offset + 3, 7)).map { #"{"id":\#($0)}"# }.joined(separator: ",")
            return .init(body: #"{"items":[\#(items)],"total":7}"#)
        }
        defer { portal.stop() }
        let directory = try CommandRunner.temporaryDirectory()
        let file = directory.appendingPathComponent("p.yaml").path
        try """
            name: both
            source:
              type: rest
              server: \(portal.origin)
              url: /items
              records: items
              total: total
              paginate: offset
              pagination: { first-page-size: 3, page-size: 3 }
            cache: { policy: cache-and-remote, path: \(directory.appendingPathComponent("cache.sqlite").path) }
            """.write(toFile: file, atomically: true, encoding: .utf8)
        _ = try await CommandRunner.run(["run", file])
        let run = try await CommandRunner.run(["run", file, "--events"])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let events = try run.stdoutLines.map { try JSONValue(parsing: $0) }
        let origins = events.filter { $0["event"] == "response" }.compactMap { $0["origin"]?.stringValue }
        #expect(origins == ["cache", "remote", "cache", "remote", "cache", "remote"])
        let ids = events.filter { $0["event"] == "selected" }.compactMap { $0["item"]?["id"] }
        #expect(ids == (0..<7).map { JSONValue.int(Int64($0)) })
    }
}
