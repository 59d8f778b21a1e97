import Foundation
import ScreensBus
import TestSupport
import Testing

@testable import ScreensPipeCore
import ScreensPipe

/// The `placeholders` fuzz target's properties on seeded mutants of hostile parent values
/// (`fuzz/corpus/placeholders`), run by every `make test`: a value reaches a header only
/// without control characters, a path as exactly one segment that decodes back to it, a
/// query as itself, and the resolved source always decodes.
@Suite("Fuzz: parent values into headers, paths and queries")
struct PlaceholderFuzzTests {
    static let tokens = ["\r", "\n", "\r\n", "\u{0}", "\u{1B}[2J", "\u{7}", "\u{85}", "${", "}", "$$", "${site.id}", "/", "..", ".", "?", "#", "%2F", "\\", "Host: ", ":", " ", "é"]
    static let corpus: [[UInt8]] = ["20143", "a\r\nX-Injected: 1", "../../admin?x=1#f", "${site.id}$${HOME}", "..", "café %2F\\", "a\u{1B}[2Jb\u{7}"].map { Array($0.utf8) }

    static let template: YAMLMapping = {
        let yaml = """
            type: rest
            server: http://127.0.0.1:1
            url: /sites/${site.id}/items
            records: items
            paginate: { style: next-link }
            query: { q: "${site.id}", label: "x ${site.id} y" }
            headers: { X-Site: "${site.id}" }
            """
        guard case .mapping(let mapping)? = try? YAMLReader(file: "<fuzz>").read(Array(yaml.utf8)) else { preconditionFailure("template") }
        return mapping
    }()

    @Test("3,000 seeded mutants: refused only for a reason, else each destination holds exactly the value")
    func mutants() throws {
        var mutator = Mutator(seed: 0x36_1A_C0DE, corpus: Self.corpus, tokens: Self.tokens)
        var resolvedCount = 0
        var refusedCount = 0
        for _ in 0..<3_000 {
            let value = String(decoding: mutator.mutant(), as: UTF8.self)
            let lineage = Lineage().adding(Lineage.Frame(name: "site", row: 0, value: ["id": .string(value)], shownFields: ["id"]))
            let hasControl = ValueDestination.firstControlCharacter(in: value) != nil
            guard let resolved = try? RowPlaceholders.resolve(Self.template, lineage: lineage) else {
                refusedCount += 1
                let tooLong = value.utf8.count > RowPlaceholders.maximumValueBytes
                #expect(hasControl || tooLong || value.isEmpty || value == "." || value == "..", "refused: \(value.prefix(80).debugDescription)")
                continue
            }
            resolvedCount += 1
            #expect(!hasControl, "a control character passed: \(value.debugDescription)")
            let context = DecodingContext()
            let decoder = SpecDecoder(context: context, defaultName: "fuzz", file: nil, placeholdersResolved: true)
            let source = Section(.mapping(resolved), name: "source", context: context).flatMap { decoder.decodeSource($0) }
            let rest = try #require(source?.type.settings(as: RESTSourceSpec.self), "\(value.debugDescription): \(context.errors.map(\.message))")
            let segment = String(rest.url.dropFirst("/sites/".count).dropLast("/items".count))
            #expect(rest.url.hasPrefix("/sites/") && rest.url.hasSuffix("/items"))
            #expect(!segment.contains { $0 == "/" || $0 == "?" || $0 == "#" || $0 == "\\" } && segment != "." && segment != "..")
            #expect(segment.removingPercentEncoding == value, "\(value.debugDescription) -> \(segment)")
            #expect(rest.query.first { $0.name == "q" }?.value == value)
            #expect(rest.query.first { $0.name == "label" }?.value == "x \(value) y")
            #expect(source?.headers.first?.value.revealed == value)
        }
        #expect(resolvedCount > 500 && refusedCount > 500, "resolved \(resolvedCount), refused \(refusedCount)")
    }
}
