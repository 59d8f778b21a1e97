import Testing

@testable import ScreensPipe

@Suite("URLParts")
struct URLPartsTests {
    @Test("host without userinfo, port or brackets; loopback decided on the host", arguments: [
        ("http://127.0.0.1:8080/api", "127.0.0.1", true),
        ("http://alice:pw@LocalHost:9/x?y=1", "localhost", true),
        ("http://[::1]:8080/", "::1", true),
        ("http://user@portal.example.com", "portal.example.com", false),
        ("https://portal.example.com:443/o/x#frag", "portal.example.com", false),
        // Userinfo ends at the last '@': the host is what follows it, never a decoy before it.
        ("http://127.0.0.1@evil.example.com/", "evil.example.com", false),
    ])
    func host(url: String, host: String, loopback: Bool) {
        let parts = URLParts(url)
        #expect(parts.host == host)
        #expect(parts.isLoopback == loopback)
    }

    @Test("the pieces put back together are the URL")
    func roundTrip() {
        let parts = URLParts("http://alice:pw@host:1/p?q=1#f")
        #expect(parts.scheme == "http://")
        #expect(parts.userinfo == "alice:pw")
        #expect(parts.hostAndPort == "host:1")
        #expect(parts.rest == "/p?q=1#f")
        #expect(URLParts("not a url").rest == "not a url")
    }
}
