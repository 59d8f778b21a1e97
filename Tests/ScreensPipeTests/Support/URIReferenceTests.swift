import Testing

@testable import ScreensPipeCore
import ScreensPipe

/// Reference resolution (RFC 3986 §5.2) against every example of RFC 3986 §5.4.
@Suite("RFC 3986 reference resolution")
struct URIReferenceTests {
    static let base = "http://a/b/c/d;p?q"

    /// RFC 3986 §5.4.1 "Normal Examples" (the same table is in golang/go
    /// src/net/url/url_test.go, resolveReferenceTests).
    static let normal: [(reference: String, expected: String)] = [
        ("g:h", "g:h"),
        ("g", "http://a/b/c/g"),
        ("./g", "http://a/b/c/g"),
        ("g/", "http://a/b/c/g/"),
        ("/g", "http://a/g"),
        ("//g", "http://g"),
        ("?y", "http://a/b/c/d;p?y"),
        ("g?y", "http://a/b/c/g?y"),
        ("#s", "http://a/b/c/d;p?q#s"),
        ("g#s", "http://a/b/c/g#s"),
        ("g?y#s", "http://a/b/c/g?y#s"),
        (";x", "http://a/b/c/;x"),
        ("g;x", "http://a/b/c/g;x"),
        ("g;x?y#s", "http://a/b/c/g;x?y#s"),
        ("", "http://a/b/c/d;p?q"),
        (".", "http://a/b/c/"),
        ("./", "http://a/b/c/"),
        ("..", "http://a/b/"),
        ("../", "http://a/b/"),
        ("../g", "http://a/b/g"),
        ("../..", "http://a/"),
        ("../../", "http://a/"),
        ("../../g", "http://a/g"),
    ]

    /// RFC 3986 §5.4.2 "Abnormal Examples", the strict parser's answer for `http:g`.
    static let abnormal: [(reference: String, expected: String)] = [
        ("../../../g", "http://a/g"),
        ("../../../../g", "http://a/g"),
        ("/./g", "http://a/g"),
        ("/../g", "http://a/g"),
        ("g.", "http://a/b/c/g."),
        (".g", "http://a/b/c/.g"),
        ("g..", "http://a/b/c/g.."),
        ("..g", "http://a/b/c/..g"),
        ("./../g", "http://a/b/g"),
        ("./g/.", "http://a/b/c/g/"),
        ("g/./h", "http://a/b/c/g/h"),
        ("g/../h", "http://a/b/c/h"),
        ("g;x=1/./y", "http://a/b/c/g;x=1/y"),
        ("g;x=1/../y", "http://a/b/c/y"),
        ("g?y/./x", "http://a/b/c/g?y/./x"),
        ("g?y/../x", "http://a/b/c/g?y/../x"),
        ("g#s/./x", "http://a/b/c/g#s/./x"),
        ("g#s/../x", "http://a/b/c/g#s/../x"),
        ("http:g", "http:g"),
    ]

    @Test("§5.4.1 normal examples", arguments: normal.indices)
    func normalExample(index: Int) {
        let (reference, expected) = Self.normal[index]
        #expect(URIReference.resolve(reference, against: Self.base) == expected, "reference \(reference)")
    }

    @Test("§5.4.2 abnormal examples", arguments: abnormal.indices)
    func abnormalExample(index: Int) {
        let (reference, expected) = Self.abnormal[index]
        #expect(URIReference.resolve(reference, against: Self.base) == expected, "reference \(reference)")
    }

    @Test("§5.2.4 remove_dot_segments, the two worked examples")
    func removeDotSegments() {
        #expect(URIReference.removingDotSegments("/a/b/c/./../../g") == "/a/g")
        #expect(URIReference.removingDotSegments("mid/content=5/../6") == "mid/6")
    }

    @Test("next links of paged APIs resolve against the page they came from")
    func pagedAPIs() {
        let page = "https://api.example.com/v1/items?page=1&per_page=10"
        #expect(URIReference.resolve("?page=2&per_page=10", against: page) == "https://api.example.com/v1/items?page=2&per_page=10")
        #expect(URIReference.resolve("//cdn.example.com/x?p=2", against: page) == "https://cdn.example.com/x?p=2")
        #expect(URIReference.resolve("items?page=2", against: page) == "https://api.example.com/v1/items?page=2")
        #expect(URIReference.resolve("../v2/items", against: page) == "https://api.example.com/v2/items")
        // A base with an authority and an empty path merges as "/" + reference (§5.2.3).
        #expect(URIReference.resolve("g", against: "http://a") == "http://a/g")
        // A first segment that is not a scheme (it starts with a digit) is a path.
        #expect(URIReference.resolve("1abc:x", against: page) == "https://api.example.com/v1/1abc:x")
    }

    @Test("components are cut as RFC 3986 Appendix B says")
    func components() {
        let reference = URIReference("http://www.ics.uci.edu/pub/ietf/uri/#Related")
        #expect(reference.scheme == "http")
        #expect(reference.authority == "www.ics.uci.edu")
        #expect(reference.path == "/pub/ietf/uri/")
        #expect(reference.query == nil)
        #expect(reference.fragment == "Related")
        let empty = URIReference("?")
        #expect(empty.query == "" && empty.path.isEmpty && empty.authority == nil)
    }
}
