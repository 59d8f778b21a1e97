import Testing

@testable import ScreensPipeCore
import ScreensPipe

/// The `Link` header parser (RFC 8288), table-driven from the test suites of published
/// parsers; each table names the file its cases come from. Expected values are written the
/// way this parser reports them: targets unresolved, relation types lower-cased.
@Suite("RFC 8288 Link header parser")
struct LinkHeaderTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var header: String
        /// (target, relation types) of every link, in order.
        var links: [(target: String, relations: [String])]
        /// Parameters other than rel that must be read, as (link index, name, value).
        var parameters: [(link: Int, name: String, value: String)] = []
        var testDescription: String { name }
    }

    /// thlorenz/parse-link-header, test/parse-link-header.js.
    static let thlorenz: [Case] = [
        Case(
            name: "next and last",
            header: "<https://api.github.com/user/9287/repos?client_id=1&client_secret=2&page=2&per_page=100>; rel=\"next\", <https://api.github.com/user/9287/repos?client_id=1&client_secret=2&page=3&per_page=100>; rel=\"last\"",
            links: [
                ("https://api.github.com/user/9287/repos?client_id=1&client_secret=2&page=2&per_page=100", ["next"]),
                ("https://api.github.com/user/9287/repos?client_id=1&client_secret=2&page=3&per_page=100", ["last"]),
            ]),
        Case(
            name: "unquoted relationships",
            header: "<https://api.github.com/user/9287/repos?client_id=1&client_secret=2&page=2&per_page=100>; rel=next, <https://api.github.com/user/9287/repos?client_id=1&client_secret=2&page=3&per_page=100>; rel=last",
            links: [
                ("https://api.github.com/user/9287/repos?client_id=1&client_secret=2&page=2&per_page=100", ["next"]),
                ("https://api.github.com/user/9287/repos?client_id=1&client_secret=2&page=3&per_page=100", ["last"]),
            ]),
        Case(
            name: "next, prev and last",
            header: "<https://api.github.com/user/9287/repos?page=3&per_page=100>; rel=\"next\", <https://api.github.com/user/9287/repos?page=1&per_page=100>; rel=\"prev\", <https://api.github.com/user/9287/repos?page=5&per_page=100>; rel=\"last\"",
            links: [
                ("https://api.github.com/user/9287/repos?page=3&per_page=100", ["next"]),
                ("https://api.github.com/user/9287/repos?page=1&per_page=100", ["prev"]),
                ("https://api.github.com/user/9287/repos?page=5&per_page=100", ["last"]),
            ]),
        Case(name: "empty header", header: "", links: []),
        Case(
            name: "next and a link without rel",
            header: "<https://api.github.com/user/9287/repos?page=3&per_page=100>; rel=\"next\", <https://api.github.com/user/9287/repos?page=1&per_page=100>; pet=\"cat\", ",
            links: [
                ("https://api.github.com/user/9287/repos?page=3&per_page=100", ["next"]),
                ("https://api.github.com/user/9287/repos?page=1&per_page=100", []),
            ],
            parameters: [(1, "pet", "cat")]),
        Case(
            name: "properties besides rel",
            header: "<https://api.github.com/user/9287/repos?page=3&per_page=100>; rel=\"next\"; hello=\"world\"; pet=\"cat\"",
            links: [("https://api.github.com/user/9287/repos?page=3&per_page=100", ["next"])],
            parameters: [(0, "hello", "world"), (0, "pet", "cat")]),
        // The suite's "comma in the url" and "multi-word rel" cases never close the `<`:
        // that is not a link-value (RFC 8288 §3), so nothing is followed here.
        Case(
            name: "unterminated target (not a link)",
            header: "<https://imaginary.url.notreal/?name=What,+me+worry; rel=\"next\";", links: []),
        Case(
            name: "multiple links for a single rel",
            header: "<http://example.com/one>; rel=\"service\",<http://example.com/two>; rel=\"service\",<http://example.com/three>; rel=\"service\"",
            links: [("http://example.com/one", ["service"]), ("http://example.com/two", ["service"]), ("http://example.com/three", ["service"])]),
    ]

    /// jhermsmeier/node-http-link-header: test/index.js, test/quotes.js,
    /// test/rfc-examples.js and test/in-the-wild.js.
    static let jhermsmeier: [Case] = [
        Case(name: "standalone link", header: "<example.com>", links: [("example.com", [])]),
        Case(name: "link with rel", header: "<example.com>; rel=example", links: [("example.com", ["example"])]),
        Case(name: "quoted rel", header: "<example.com>; rel=\"example\"", links: [("example.com", ["example"])]),
        Case(
            name: "multiple links", header: "<example.com>; rel=\"example\", <example-01.com>; rel=\"alternate\"",
            links: [("example.com", ["example"]), ("example-01.com", ["alternate"])]),
        Case(
            name: "mixed quotes", header: "<example.com>; rel=\"example\", <example-01.com>; rel=alternate",
            links: [("example.com", ["example"]), ("example-01.com", ["alternate"])]),
        Case(
            name: "attribute with semicolon",
            header: "<http://example.com/quotes/semicolons>; rel=\"previous\"; title=\"previous; chapter\"",
            links: [("http://example.com/quotes/semicolons", ["previous"])], parameters: [(0, "title", "previous; chapter")]),
        Case(
            name: "attribute with comma",
            header: "<http://example.com/quotes/semicolons>; rel=\"previous\"; title=\"previous, chapter\"",
            links: [("http://example.com/quotes/semicolons", ["previous"])], parameters: [(0, "title", "previous, chapter")]),
        Case(
            name: "comma and semicolon inside quoted rels",
            header: "<example.com>; rel=\"example,comma\", <example-01.com>; rel=\"alternate;semicolon\"",
            links: [("example.com", ["example,comma"]), ("example-01.com", ["alternate;semicolon"])]),
        Case(
            name: "multiple rel types with semicolon", header: "<example.com>; rel=\"example; start\"",
            links: [("example.com", ["example;", "start"])]),
        Case(
            name: "RFC example 01",
            header: "<http://example.com/TheBook/chapter2>; rel=\"previous\"; title=\"previous chapter\"",
            links: [("http://example.com/TheBook/chapter2", ["previous"])], parameters: [(0, "title", "previous chapter")]),
        Case(
            name: "RFC example 02", header: "</>; rel=\"http://example.net/foo\"", links: [("/", ["http://example.net/foo"])]),
        Case(
            name: "RFC example 03 (title*)",
            header: "</TheBook/chapter2>; rel=\"previous\"; title*=UTF-8'de'letztes%20Kapitel, </TheBook/chapter4>; rel=\"next\"; title*=UTF-8'de'n%c3%a4chstes%20Kapitel",
            links: [("/TheBook/chapter2", ["previous"]), ("/TheBook/chapter4", ["next"])],
            parameters: [(0, "title*", "UTF-8'de'letztes%20Kapitel")]),
        Case(
            name: "RFC example 04 (two relation types)",
            header: "<http://example.org/>; rel=\"start http://example.net/relation/other\"",
            links: [("http://example.org/", ["start", "http://example.net/relation/other"])]),
        Case(
            name: "Let's Encrypt",
            header: "<https://acme-staging.api.letsencrypt.org/acme/new-authz>;rel=\"next\", <https://letsencrypt.org/documents/LE-SA-v1.1.1-August-1-2016.pdf>;rel=\"terms-of-service\"",
            links: [
                ("https://acme-staging.api.letsencrypt.org/acme/new-authz", ["next"]),
                ("https://letsencrypt.org/documents/LE-SA-v1.1.1-August-1-2016.pdf", ["terms-of-service"]),
            ]),
    ]

    /// psf/requests, tests/test_utils.py (test_parse_header_links), and
    /// tomnomnom/linkheader, main_test.go (TestSimple).
    static let others: [Case] = [
        Case(
            name: "requests: rel and type", header: "<http:/.../front.jpeg>; rel=front; type=\"image/jpeg\"",
            links: [("http:/.../front.jpeg", ["front"])], parameters: [(0, "type", "image/jpeg")]),
        Case(name: "requests: bare target", header: "<http:/.../front.jpeg>", links: [("http:/.../front.jpeg", [])]),
        Case(name: "requests: trailing semicolon", header: "<http:/.../front.jpeg>;", links: [("http:/.../front.jpeg", [])]),
        Case(
            name: "requests: two links, no space",
            header: "<http:/.../front.jpeg>; type=\"image/jpeg\",<http://.../back.jpeg>;",
            links: [("http:/.../front.jpeg", []), ("http://.../back.jpeg", [])], parameters: [(0, "type", "image/jpeg")]),
        Case(
            name: "linkheader: next, prev with a parameter, last",
            header: "<https://api.github.com/user/9287/repos?page=3&per_page=100>; rel=\"next\", <https://api.github.com/user/9287/repos?page=1&per_page=100>; rel=\"prev\"; pet=\"cat\", <https://api.github.com/user/9287/repos?page=5&per_page=100>; rel=\"last\"",
            links: [
                ("https://api.github.com/user/9287/repos?page=3&per_page=100", ["next"]),
                ("https://api.github.com/user/9287/repos?page=1&per_page=100", ["prev"]),
                ("https://api.github.com/user/9287/repos?page=5&per_page=100", ["last"]),
            ],
            parameters: [(1, "pet", "cat")]),
    ]

    /// The grammar's corners (RFC 8288 §3 and §3.3): what this project's pagination relies on.
    static let grammar: [Case] = [
        Case(
            name: "comma and semicolon inside <...>", header: "<http://x/a?b=1,2;c=3>; rel=next",
            links: [("http://x/a?b=1,2;c=3", ["next"])]),
        Case(
            name: "rel= inside a quoted parameter", header: "<http://x/prev>; title=\"go on; rel=next, <http://x/evil>\"; rel=prev, <http://x/2>; rel=next",
            links: [("http://x/prev", ["prev"]), ("http://x/2", ["next"])]),
        Case(
            name: "only the first rel counts", header: "<http://x/1>; rel=prev; rel=next, <http://x/2>; rel=next",
            links: [("http://x/1", ["prev"]), ("http://x/2", ["next"])]),
        Case(name: "case-insensitive names and types", header: "<http://x/2>; REL=\"Next\"", links: [("http://x/2", ["next"])]),
        Case(
            name: "escaped quote in a quoted string", header: "<sample>; rel=abc, <plop>; rel\t=\"d\\\"e;f,\"; title = test title; abc",
            links: [("sample", ["abc"]), ("plop", ["d\"e;f,"])], parameters: [(1, "title", "test title")]),
        Case(name: "a member without <...> is skipped", header: "garbage; rel=next, <http://x/2>; rel=next", links: [("http://x/2", ["next"])]),
    ]

    static let all = thlorenz + jhermsmeier + others + grammar

    @Test("published parser cases", arguments: all)
    func parses(_ example: Case) {
        let links = LinkHeader.parse(example.header)
        #expect(links.map(\.target) == example.links.map(\.target), "\(example.name)")
        #expect(links.map(\.relations) == example.links.map(\.relations), "\(example.name)")
        for (index, name, value) in example.parameters {
            #expect(index < links.count && links[index].parameter(name) == value, "\(example.name): \(name)")
        }
    }

    @Test("every published case, as a full page of a link-header list: a next link goes on, anything else ends it", arguments: all)
    func endsAsTheHeaderSays(_ example: Case) throws {
        let next = example.links.first { $0.relations.contains("next") }?.target
        let wire = try RESTWireFormat(spec: RESTSourceSpec(url: "https://api.example.com/items", paginate: .linkHeader), baseURL: nil)
        let response = HTTPResponse(
            status: 200, headers: HTTPHeaders(example.header.isEmpty ? [] : [(name: "Link", value: example.header)]),
            effectiveURL: "https://api.example.com/items")
        let request = PageRequest(index: 0, startRow: 0, endRow: 2, includesRowCount: true)
        let decoded = try wire.decode([["id": 1], ["id": 2]], response: response, page: request)
        var page = FetchedPage(request: request, rows: decoded.rows, continuation: decoded.continuation, origin: .remote)
        page.missingContinuation = decoded.missingContinuation
        var state = ChainedLoadState(pagination: PaginationSpec(firstPageSize: 2, pageSize: 2), requestsPageSize: false)
        switch state.receive(page) {
        case .deliver(_, .next): #expect(next != nil, "followed a link in \(example.header)")
        case .deliver(_, .end(.lastPage, nil)): #expect(next == nil, "ended although \(example.header) names a next page")
        default: Issue.record("a full page of a link-header list is neither followed nor ended: \(example.header)")
        }
    }

    @Test("the next link is the first link whose rel includes next, across header fields")
    func nextAcrossFields() {
        #expect(LinkHeader.target(relation: "next", in: ["<a>; rel=prev", "<b>; rel=\"last next\""]) == "b")
        #expect(LinkHeader.target(relation: "next", in: ["<a>; rel=prev; rel=next"]) == nil)
        #expect(LinkHeader.target(relation: "next", in: []) == nil)
        // RFC 8288 §3.2: an anchored link describes another resource.
        #expect(LinkHeader.target(relation: "next", in: ["<a>; rel=next; anchor=\"#other\", <b>; rel=next"]) == "b")
    }
}
