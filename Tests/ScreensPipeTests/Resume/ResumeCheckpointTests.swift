import Foundation
import ScreensBus
import Testing
@testable import ScreensPipeCore
import ScreensPipe

/// The stored checkpoint document: read back as written, and refused with a clear
/// `configuration` error (exit 2) when it is not one, since the database is input too.
@Suite struct ResumeCheckpointTests {
    static let sample = ResumeCheckpoint(
        specDigest: "sha256:0123456789abcdef", output: "out.jsonl",
        kept: OutputIdentity(path: ".out.jsonl.1f.tmp", device: 2049, inode: UInt64(Int64.max) + 5), nextPage: 12, bytes: 48_213,
        pages: 12, rows: 600, selected: 598, snapshot: "5C1E",
        delivered: CursorPosition(cursor: .date(epochMilliseconds: 1_700_000_000_000), boundary: ["sha256:aa", "sha256:bb"]))

    @Test func aDocumentReadsBackAsWritten() throws {
        let text = Self.sample.document()
        #expect(try ResumeCheckpoint(document: text, type: .date, pipeline: "p") == Self.sample)
        var plain = Self.sample
        plain.delivered = nil
        #expect(try ResumeCheckpoint(document: plain.document(), type: nil, pipeline: "p") == plain)
    }

    @Test(arguments: [
        ("", "is not JSON"),
        ("[]", "is not a version 1 checkpoint"),
        (#"{"version":2}"#, "is not a version 1 checkpoint"),
        (#"{"version":1,"spec":"x","output":"o","snapshot":"s"}"#, "lacks its spec digest, output, snapshot or kept file"),
        (#"{"version":1,"spec":"x","output":"o","snapshot":"s","kept":{"path":"k","device":-1,"inode":2}}"#, "lacks its spec digest"),
        (#"{"version":1,"spec":"x","output":"o","snapshot":"s","kept":{"path":"k","device":1,"inode":2},"nextPage":-3}"#, "has no valid 'nextPage'"),
        (#"{"version":1,"spec":"x","output":"o","snapshot":"s","kept":{"path":"k","device":1,"inode":2},"nextPage":1,"bytes":1e99}"#, "has no valid 'bytes'"),
    ])
    func aDocumentThatIsNotACheckpointIsRefusedClearly(document: String, reason: String) {
        #expect {
            _ = try ResumeCheckpoint(document: document, type: nil, pipeline: "p")
        } throws: { error in
            guard let error = error as? ScreensPipeError else { return false }
            return error.code == .configuration
                && error.message.hasPrefix("cannot resume pipeline p: its stored checkpoint ") && error.message.contains(reason)
                && error.message.hasSuffix("run it again without --resume")
        }
    }

    @Test func aDeliveredCursorOfAnotherTypeOrAHugeDocumentIsRefused() {
        let dated = Self.sample.document()
        #expect(throws: ScreensPipeError.self) { try ResumeCheckpoint(document: dated, type: .integer, pipeline: "p") }
        #expect(throws: ScreensPipeError.self) { try ResumeCheckpoint(document: dated, type: nil, pipeline: "p") }
        let huge = String(repeating: " ", count: ResumeCheckpoint.maximumDocumentBytes + 1)
        #expect {
            _ = try ResumeCheckpoint(document: huge, type: nil, pipeline: "p")
        } throws: { error in
            (error as? ScreensPipeError)?.message.contains("is larger than 64 MiB") == true
        }
    }
}
