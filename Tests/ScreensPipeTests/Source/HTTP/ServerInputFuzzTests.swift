import Foundation
import ScreensBus
import TestSupport
import Testing

@testable import ScreensPipeCore
import ScreensPipe

/// Seeded mutants of the fuzz corpora through the parsers of server input (the same inputs
/// `make fuzz` starts from): the response interpreter of every wire format, the localized
/// XML reader, the interpolator and the regex engine. Each must answer, never trap or hang.
@Suite("Fuzz: server responses, XML, interpolation, regex")
struct ServerInputFuzzTests {
    /// Each wire format's interpreter, as the fetcher runs it on a response.
    static let interpreters: [@Sendable (PageRequest, HTTPResponse) -> Bool] = {
        let sources = [
            "{ type: liferay-jsonws, server: 'http://127.0.0.1:1', rows: { service: /a/get-entries }, count: { service: /a/get-entries-count } }",
            "{ type: liferay-headless, server: 'http://127.0.0.1:1', path: /o/headless-delivery/v1.0/sites/1/structured-contents }",
            "{ type: rest, server: 'http://127.0.0.1:1', url: /items, records: data.items, total: data.total, paginate: offset }",
            "{ type: rest, server: 'http://127.0.0.1:1', url: /items, records: results, paginate: cursor }",
            "{ type: rest, server: 'http://127.0.0.1:1', url: /items, records: items, paginate: next-link }",
            "{ type: rest, server: 'http://127.0.0.1:1', url: /items, paginate: link-header }",
        ]
        return sources.compactMap { source in
            guard let spec = try? PipelineLoader(environment: [:]).load(yaml: "source: \(source)", file: "fuzz.yaml"),
                case .http(let wire, let settings)? = try? SourceFactory.makeBlueprint(spec: spec, baseURL: "http://127.0.0.1:1")
            else { return nil }
            return interpreter(wire, settings: settings)
        }
    }()

    private static func interpreter(_ wire: some WireFormat, settings: HTTPSourceSettings) -> @Sendable (PageRequest, HTTPResponse) -> Bool {
        let fetcher = HTTPPageFetcher(wire: wire, settings: settings)
        return { page, response in
            switch fetcher.interpret(response, page: page, request: "GET http://127.0.0.1:1/items") {
            case .final(.success): return true
            default: return false
            }
        }
    }

    /// The fuzz target's input format: 2 status bytes, header lines, a blank line, the body.
    static func response(_ input: [UInt8]) -> HTTPResponse? {
        guard input.count >= 2 else { return nil }
        let status = 100 + Int(UInt16(input[0]) << 8 | UInt16(input[1])) % 500
        let rest = input.dropFirst(2)
        let split = rest.firstRange(of: [0x0A, 0x0A])
        let headerBytes = split.map { rest[..<$0.lowerBound] } ?? rest[rest.endIndex...]
        var headers = HTTPHeaders()
        for line in String(decoding: headerBytes, as: UTF8.self).split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.add(name: String(line[..<colon]), value: String(line[line.index(after: colon)...]))
        }
        let body = split.map { Array(rest[$0.upperBound...]) } ?? Array(rest)
        return HTTPResponse(status: status, headers: headers, body: body, effectiveURL: "http://127.0.0.1:1/items")
    }

    @Test("3,000 mutated responses through every wire format's interpreter")
    func responses() throws {
        #expect(Self.interpreters.count == 6)
        var mutator = Mutator(
            seed: 0x5E_4E_2026, corpus: try Mutator.corpus("response"),
            tokens: ["\n\n", "[", "]", "{", "}", "\"", ":", ",", "Retry-After: ", "Link: <", ">; rel=next", "9223372036854775807", "-1", "1e999", "\u{1B}"])
        var pages = 0
        for index in 0..<3_000 {
            guard let response = Self.response(mutator.mutant()) else { continue }
            if let retryAfter = response.headers["Retry-After"] { _ = RetryAfter.delay(retryAfter, now: Date()) }
            let page = PageRequest(index: index % 3, pagination: PaginationSpec(firstPageSize: 5, pageSize: 3))
            for interpret in Self.interpreters where interpret(page, response) { pages += 1 }
        }
        #expect(pages > 0)
    }

    @Test("3,000 mutated XML documents: parsed or refused, values resolved")
    func xml() throws {
        var mutator = Mutator(
            seed: 0x0C_A1_2026, corpus: try Mutator.corpus("xml"),
            tokens: ["<", ">", "</", "/>", "<a>", "&amp;", "&#x", ";", "<![CDATA[", "]]>", "<!--", "-->", "\"", "language-id=\"es_ES\"", "<root>"])
        var parsed = 0
        for _ in 0..<3_000 {
            let text = String(decoding: mutator.mutant(), as: UTF8.self)
            if (try? XMLReader.parse(text)) != nil { parsed += 1 }
            _ = LocalizedValue.resolve(.string(text), locale: "es_ES")
        }
        #expect(parsed > 0)
    }

    @Test("3,000 mutated ${...} texts: expanded or refused")
    func interpolation() throws {
        var mutator = Mutator(
            seed: 0x1A_7E_2026, corpus: try Mutator.corpus("interpolate"),
            tokens: ["${", "}", ":-", ":?", "-", "?", "$$", "A", "EMPTY", "${A:-"])
        let interpolator = Interpolator(environment: ["A": "a", "EMPTY": "", "B": "${A}"])
        var expanded = 0
        for _ in 0..<3_000 {
            if (try? interpolator.expand(String(decoding: mutator.mutant(), as: UTF8.self))) != nil { expanded += 1 }
        }
        #expect(expanded > 0)
    }

    @Test("3,000 mutated patterns and texts: compiled or refused, every match ends")
    func regex() throws {
        var mutator = Mutator(
            seed: 0x4E_6E_2026, corpus: try Mutator.corpus("regex"),
            tokens: ["(", ")", "*", "+", "?", "{1000}", "{2,5}", "|", "[", "]", "^", "$", "\\", "(?i)", "(?:", ".", "a", "\u{0}"])
        var compiled = 0
        for _ in 0..<3_000 {
            let input = mutator.mutant()
            let split = input.firstIndex(of: 0) ?? input.endIndex
            guard let regex = try? FilterRegex(String(decoding: input[..<split], as: UTF8.self)) else { continue }
            compiled += 1
            let text = split < input.endIndex ? String(decoding: input[(split + 1)...], as: UTF8.self) : "aaaa!"
            _ = regex.matches(text)
        }
        #expect(compiled > 100)
    }
}
