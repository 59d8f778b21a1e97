import TestSupport
import Testing

@testable import ScreensPipeCore
import ScreensPipe

/// The `Link` header parser and the reference resolver on seeded mutants of server text:
/// every input parses in bounded time without a trap, and every resolved path is free of
/// dot segments (RFC 3986 §5.2.4 removes them all).
@Suite("Fuzz: Link headers and references")
struct LinkFuzzTests {
    static let tokens = ["<", ">", ";", ",", "=", "\"", "\\", " ", "\t", "rel", "next", "//", "/", "..", ".", "?", "#", ":", "http", "é", "%"]
    static let corpus: [[UInt8]] = [
        "<https://api.example.com/items?page=2&per_page=10>; rel=\"next\", <https://api.example.com/items?page=5>; rel=\"last\"",
        "<?page=2>; rel=next; title=\"a, b; rel=prev\"",
        "</a/./b/../c>; rel=\"prev next\"; anchor=\"#x\"",
        "../../g;x=1/./y?q#f",
    ].map { Array($0.utf8) }

    @Test("5,000 seeded mutants: parsed without a trap; targets never hold '>'; resolved paths have no dot segments")
    func mutants() {
        var mutator = Mutator(seed: 0x11E4_8288, corpus: Self.corpus, tokens: Self.tokens)
        var links = 0
        for _ in 0..<5_000 {
            let text = String(decoding: mutator.mutant(), as: UTF8.self)
            for link in LinkHeader.parse(text) {
                links += 1
                #expect(!link.target.contains(">"))
                let resolved = URIReference(URIReference.resolve(link.target, against: "http://a/b/c/d;p?q"))
                let segments = resolved.path.split(separator: "/", omittingEmptySubsequences: false)
                #expect(!segments.contains(".") && !segments.contains(".."), "\(link.target)")
            }
        }
        #expect(links > 1_000)
    }

    @Test("a megabyte of angle brackets, quotes or dot segments is handled in one pass")
    func largeInputs() {
        #expect(LinkHeader.parse(String(repeating: "<", count: 1 << 20)).isEmpty)
        #expect(LinkHeader.parse("<a>; t=\"" + String(repeating: "\\\"", count: 1 << 19)).count == 1)
        let deep = String(repeating: "../", count: 1 << 18) + "g"
        #expect(URIReference.resolve(deep, against: "http://a/b/c/d") == "http://a/g")
    }
}
