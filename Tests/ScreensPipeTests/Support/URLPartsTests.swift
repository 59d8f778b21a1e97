import Testing

@testable import ScreensPipeCore
import ScreensPipe

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

    @Test("only a dotted quad of decimal octets in 127.0.0.0/8 is loopback IPv4", arguments: [
        ("127.0.0.1", true), ("127.255.255.254", true), ("127.000.000.001", true),
        ("127.1", false), ("127.0.0.1.", false), (".127.0.0.1", false), ("127..0.1", false),
        ("127.0.0.256", false), ("1270.0.0.1", false), ("127.0.0.1a", false), ("128.0.0.1", false),
        ("\u{FF11}\u{FF12}\u{FF17}.0.0.1", false), ("127.0.0.\u{0661}", false),
    ])
    func ipv4Loopback(host: String, loopback: Bool) {
        #expect(URLParts("http://\(host):8080/x").isLoopback == loopback)
    }

    @Test("cut on the bytes libcurl reads: a combining mark does not hide a '/', '@' or ':'")
    func cutOnBytes() {
        let parts = URLParts("http://evil.example.com/\u{301}@127.0.0.1/")
        #expect(parts.hostAndPort == "evil.example.com")
        #expect(parts.rest == "/\u{301}@127.0.0.1/")
        #expect(parts.isLoopback == false)
        let marked = URLParts("http://user@\u{301}host:81/")
        #expect(marked.userinfo == "user")
        #expect(marked.port == 81)
        // The scheme ends at the first "://", after partial matches.
        let odd = URLParts("a:/b://c:/d")
        #expect(odd.scheme == "a:/b://")
        #expect(odd.hostAndPort == "c:")
        #expect(odd.rest == "/d")
        #expect(URLParts("HTTPS://Portal.Example.COM/o").origin == "https://portal.example.com:443")
        #expect(URLParts("http://[::1]/").origin == "http://[::1]:80")
    }
}
