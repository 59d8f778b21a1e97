import Foundation
@testable import ScreensPipeCore
import Testing

/// The copies of kept uploads: one directory per upload holding the file under its name,
/// kept while an entry names it; none for a PostgreSQL outbox.
@Suite("Upload spool")
struct UploadSpoolTests {
    private func entry(_ row: String) -> OutboxEntry {
        OutboxEntry(sequence: 1, key: "[]", operation: .add, row: row, createdAt: 0, attempts: 0, lastError: nil, baseVersion: nil)
    }

    @Test("a copy keeps the file's bytes and name; a sweep removes the copies no entry names, and nothing else")
    func keepAndSweep() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("spool-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let original = root.appendingPathComponent("photo of me.png")
        let bytes = Data((0..<300_000).map { UInt8($0 % 251) })
        try bytes.write(to: original)
        let spool = try UploadSpool(place: .directory(root.path), pipeline: "p", target: "t")
        #expect(spool.directory.hasPrefix(root.path + "/outbox-files/"))
        #expect(try UploadSpool(place: .directory(root.path), pipeline: "p", target: "other").directory != spool.directory)

        let first = try spool.keep(original.path)
        let second = try spool.keep(original.path)
        #expect(first.hasSuffix("/photo of me.png") && first != second)
        #expect(try Data(contentsOf: URL(fileURLWithPath: spool.directory + "/" + first)) == bytes)

        spool.sweep(keeping: [entry(#"{"file":"\#(first)","title":"t"}"#), entry(#"{"op":"delete","fileEntryId":1}"#), entry("not json")])
        #expect(FileManager.default.fileExists(atPath: spool.directory + "/" + first))
        #expect(!FileManager.default.fileExists(atPath: spool.directory + "/" + String(second.prefix { $0 != "/" })))
        spool.sweep(keeping: [])
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool.directory).isEmpty)
        #expect(FileManager.default.fileExists(atPath: original.path), "the original is never touched")

        #expect(throws: ScreensPipeError.self) { try spool.keep(root.appendingPathComponent("missing.png").path) }
    }

    @Test("a PostgreSQL outbox, shared by replicas with no shared disk, keeps no uploads, and says so")
    func noSpoolInPostgres() {
        #expect {
            _ = try UploadSpool(place: .postgres(PostgresTarget(host: "db", user: "u")), pipeline: "p", target: "t")
        } throws: { error in
            (error as? ScreensPipeError)?.message.contains("remote-only") == true
        }
    }
}
