import Foundation
import ScreensBus
import TestSupport
import Testing

@testable import ScreensPipeCore

/// The `session` fuzz target's properties on seeded mutants of command lines
/// (`fuzz/corpus/session`), run by every `make test`: each line is a command within its
/// limits, or an `unreadable` answer of bounded size, and the same one each time.
@Suite("Fuzz: session command lines")
struct SessionRequestFuzzTests {
    static let tokens = [
        #"{"op":"#, #""load""#, #""page""#, #""select""#, #""add""#, #""delete""#, #""follow""#, #""every":"#, #""30s""#, #""id":"#,
        #""row":"#, #""key":"#, "{", "}", "[", "]", ",", ":", "\"", "\\u0000", "-1", "2147483648", "1e400", "null", "é", "\u{FFFD}",
    ]

    /// The corpus files' lines, each a seed.
    static let corpus: [[UInt8]] = ((try? Mutator.corpus("session")) ?? []).flatMap { file in
        file.split(separator: UInt8(ascii: "\n")).map(Array.init)
    }

    @Test("the corpus holds every kind of command")
    func corpusIsThere() {
        #expect(Self.corpus.count >= 15)
    }

    @Test("3,000 seeded mutants: a command within its limits or a bounded reason, the same each time")
    func mutants() {
        var mutator = Mutator(seed: 0x5E55_10_4E, corpus: Self.corpus, tokens: Self.tokens)
        var readable = 0
        for _ in 0..<3_000 {
            let line = mutator.mutant().filter { $0 != UInt8(ascii: "\n") }
            let request = SessionRequest(line: line)
            #expect(SessionRequest(line: line) == request)
            if let id = request.id {
                #expect(id.isNumber || id.stringValue != nil)
                #expect(id.jsonString.utf8.count <= SessionRequest.maximumIDLength)
            }
            switch request.operation {
            case .unreadable(let reason):
                #expect(reason.utf8.count <= 1024, "\(reason.prefix(200))")
                continue
            case .page(let index), .select(row: let index):
                #expect((0...Int(Int32.max)).contains(index))
            case .follow(every: let interval):
                #expect(interval >= .milliseconds(100) && interval <= .seconds(24 * 3600))
            case .edit(.add(row: let row)), .edit(.update(row: let row)):
                #expect(row.objectValue?.isEmpty == false)
            case .edit(.delete(key: let key)):
                let members = key.objectValue ?? [:]
                #expect((1...SessionRequest.maximumKeyFields).contains(members.count))
                #expect(members.values.allSatisfy { $0.objectValue == nil && $0.arrayValue == nil })
            case .load, .next, .refresh, .unfollow, .close:
                break
            }
            #expect(line.count <= SessionRequest.maximumLineLength)
            readable += 1
        }
        // Some mutants are still commands (37 with this seed): the properties above were exercised.
        #expect(readable > 20)
    }
}
