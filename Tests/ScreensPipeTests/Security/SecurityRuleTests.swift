import Foundation
import Logging
import ScreensBus
import ScreensPipeService
import Testing

@testable import ScreensPipeCore
@testable import ScreensPipeSQLite
import ScreensPipe

@Suite("security rules: loopback, origins, sanitizing, redacted reflection, cache keys, cache files")
struct SecurityRuleTests {
    @Test("loopback is parsed, not matched on text", arguments: [
        ("http://127.0.0.1/", true), ("http://127.255.3.4:9/", true), ("HTTP://LOCALHOST/", true),
        ("http://[::1]:80/", true), ("http://[0:0:0:0:0:0:0:1]/", true),
        ("http://127.example.com/", false), ("http://127.0.0.1.example.com/", false), ("http://127.0.0.256/", false),
        ("http://128.0.0.1/", false), ("http://[::2]/", false), ("http://localhost.example.com/", false),
    ])
    func loopback(url: String, loopback: Bool) {
        #expect(URLParts(url).isLoopback == loopback)
    }

    @Test("origins compare scheme, host and port, with default ports spelled out")
    func origins() {
        #expect(URLParts("HTTP://Portal.example.com/x").origin == URLParts("http://portal.example.com:80/y").origin)
        #expect(URLParts("https://a/").origin != URLParts("http://a/").origin)
        #expect(URLParts("http://a:8080/").origin != URLParts("http://a:8081/").origin)
        #expect(URLParts("http://127.0.0.1:8080@127.0.0.2:9/o").origin == "http://127.0.0.2:9")
    }

    @Test("the credential policy: same origin with, other origin refused or without, plain http refused")
    func credentialPolicy() throws {
        var source = SourceSpec(type: .file(FileSourceSpec(path: "")), auth: .bearer(token: "t"))
        let home = "http://127.0.0.1:8080/api"
        #expect(try CredentialPolicy.check(url: home + "?p=2", configured: home, hasCredentials: true, source: source) == .sendWithCredentials)
        #expect(throws: ScreensPipeError.self) {
            try CredentialPolicy.check(url: "http://127.0.0.2:8080/api", configured: home, hasCredentials: true, source: source)
        }
        source.followOtherOrigins = true
        #expect(
            try CredentialPolicy.check(url: "http://127.0.0.2:8080/api", configured: home, hasCredentials: true, source: source)
                == .sendWithoutCredentials)
        #expect(throws: ScreensPipeError.self) {
            try CredentialPolicy.check(url: "Http://127.example.com/", configured: "Http://127.example.com/", hasCredentials: true, source: source)
        }
        #expect(throws: ScreensPipeError.self) {
            try CredentialPolicy.check(url: "http://u:p@h.example/", configured: "http://u:p@h.example/", hasCredentials: false, source: source)
        }
    }

    @Test("server text: control characters escaped, bidi overrides escaped, length capped")
    func sanitizing() {
        #expect(sanitizedServerText("a\u{1B}[2Jb\r\n\u{07}") == "a\\u{1b}[2Jb\\u{d}\\u{a}\\u{7}")
        #expect(sanitizedServerText("x\u{202E}y\u{9B}z") == "x\\u{202e}y\\u{9b}z")
        #expect(sanitizedServerText("ünïcode ok") == "ünïcode ok")
        let long = sanitizedServerText(String(repeating: "x", count: 10_000))
        #expect(long.count == 501)
    }

    @Test("a Secret shows only the marker, and the transport still sends the real value")
    func secretType() {
        let secret = Secret("pw-SECRET")
        var dumped = ""
        dump(secret, to: &dumped)
        for text in ["\(secret)", String(reflecting: secret), dumped, "\(Mirror(reflecting: secret).children.map(\.value))"] {
            #expect(!text.contains("pw-SECRET"), "\(text)")
        }
        #expect(secret.revealed == "pw-SECRET")
        var request = HTTPRequest(url: "https://h.example/x")
        let source = SourceSpec(type: .file(FileSourceSpec(path: "")), auth: .basic(username: "u", password: secret))
        HTTPSourceSettings(source: source, configuredURL: "https://h.example", onRetry: nil, logger: Logger(label: "t"))
            .apply(to: &request)
        #expect(request.headers["Authorization"] == "Basic " + Data("u:pw-SECRET".utf8).base64EncodedString())
    }

    @Test("credentials print redacted in description, debugDescription, dump and Mirror")
    func reflection() {
        let auth = AuthSpec.basic(username: "alice", password: "pw-SECRET")
        var dumped = ""
        dump(auth, to: &dumped)
        let mirror = Mirror(reflecting: auth).children.map { "\($0.value)" }.joined()
        for text in ["\(auth)", String(reflecting: auth), dumped, mirror] {
            #expect(!text.contains("pw-SECRET"), "\(text)")
            #expect(text.contains(redactedPlaceholder))
        }
        let source = SourceSpec(
            type: .file(FileSourceSpec(path: "x")), auth: .bearer(token: "tok-SECRET"),
            headers: [HeaderSpec(name: "X-Api-Key", value: "key-SECRET")])
        var dumpedSource = ""
        dump(source, to: &dumpedSource)
        #expect(!dumpedSource.contains("tok-SECRET") && !dumpedSource.contains("key-SECRET"), "\(dumpedSource)")
        let service = PipelineService(spec: PipelineSpec(name: "svc", source: source))
        var dumpedService = ""
        dump(service, to: &dumpedService)
        for text in ["\(service)", dumpedService] {
            #expect(!text.contains("tok-SECRET") && !text.contains("key-SECRET"), "\(text)")
        }
    }

    @Test("cache keys hold digests of secret params, query values and userinfo, and still tell secrets apart")
    func cacheKeyDigests() throws {
        func spec(_ secret: String) -> PipelineSpec {
            let rest = RESTSourceSpec(
                url: "http://u:\(secret)@h.example/x?access_token=\(secret)", paginate: .offset(offsetParam: "o", limitParam: "l"),
                query: [QueryParameter(name: "api_key", value: secret), QueryParameter(name: "q", value: "visible")])
            return PipelineSpec(name: "k", source: SourceSpec(type: .rest(rest), server: .url("https://v:\(secret)@h.example")))
        }
        let jsonws = JSONWSSourceSpec(rows: ServiceCall(service: "/x/get", params: ["p_auth": "pa-SECRET", "nested": ["password": "np-SECRET"]]))
        let jsonwsKey = try CacheKey(spec: PipelineSpec(name: "j", source: SourceSpec(type: .liferayJSONWS(jsonws)))).text
        #expect(!jsonwsKey.contains("pa-SECRET") && !jsonwsKey.contains("np-SECRET"), "\(jsonwsKey)")
        let one = try CacheKey(spec: spec("one-SECRET")).text
        let two = try CacheKey(spec: spec("two-SECRET")).text
        #expect(!one.contains("one-SECRET"), "\(one)")
        #expect(one.contains("visible"))
        #expect(one != two)
    }

    @Test("the cache refuses a symlinked database, another user's file and group-writable places")
    func cacheFiles() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sp-sec-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let target = directory + "/target"
        _ = FileManager.default.createFile(atPath: target, contents: Data("keep".utf8), attributes: [.posixPermissions: 0o644])
        let link = directory + "/cache.sqlite"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        #expect(throws: ScreensPipeError.self) { try CacheStore(path: link) }
        let mode = try FileManager.default.attributesOfItem(atPath: target)[.posixPermissions] as? Int
        #expect(mode == 0o644)

        let shared = directory + "/shared.sqlite"
        _ = FileManager.default.createFile(atPath: shared, contents: nil, attributes: [.posixPermissions: 0o666])
        #expect(throws: ScreensPipeError.self) { try CacheStore(path: shared) }

        let openDirectory = directory + "/open"
        try FileManager.default.createDirectory(atPath: openDirectory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o777])
        chmod(openDirectory, 0o777)
        #expect(throws: ScreensPipeError.self) { try CacheStore(path: openDirectory + "/cache.sqlite", ownsDirectory: true) }

        if geteuid() == 0 {
            let foreign = directory + "/foreign.sqlite"
            _ = FileManager.default.createFile(atPath: foreign, contents: nil, attributes: [.posixPermissions: 0o600])
            chown(foreign, 65534, 65534)
            let error = #expect(throws: ScreensPipeError.self) { try CacheStore(path: foreign) }
            #expect(error?.message.contains("owned by uid 65534") == true)
        }
        // A fresh, private place is accepted.
        _ = try CacheStore(path: directory + "/fresh/cache.sqlite", ownsDirectory: true)
    }
}

/// Every secret form in a decoded spec is a typed secret: Swift's own ways of showing a
/// value (interpolation, `dump`, `String(reflecting:)`, `Mirror`) never print it.
@Suite struct TypedSecretReflectionTests {
    @Test func dumpAndReflectionOfASpecShowNoSecret() throws {
        let spec = try PipelineLoader(environment: [:]).load(
            yaml: """
                source:
                  type: liferay-jsonws
                  server: https://portal.example.com
                  auth: { bearer: token-SECRET-1 }
                  rows: { service: /a/b, params: { groupId: 1, p_auth: pauth-SECRET-2 } }
                  headers: { Cookie: sid-SECRET-3, X-Tenant: { secret: tenant-SECRET-4 } }
                """, file: "t.yaml")
        var dumped = ""
        dump(spec, to: &dumped)
        for text in [dumped, String(reflecting: spec), "\(spec)", String(describing: Mirror(reflecting: spec).children.map { $0 })] {
            #expect(!text.contains("SECRET"), "\(text.prefix(400))")
        }
        guard let jsonws = spec.source.type.settings(as: JSONWSSourceSpec.self) else { Issue.record("not JSON-WS"); return }
        #expect(jsonws.rows.secrets["p_auth"]?.revealed == "pauth-SECRET-2")
        #expect(jsonws.rows.params["p_auth"] == nil)
        #expect(spec.source.headers.allSatisfy { $0.value.isSecret })
    }

    @Test func urlsWithTokensAndUserinfoAreRedactedInReflection() throws {
        let spec = try PipelineLoader(environment: [:]).load(
            yaml: """
                source:
                  type: rest
                  server: https://alice:pw-SECRET-5@portal.example.com
                  url: /items?access_token=tok-SECRET-6&q=visible
                  paginate: offset
                """, file: "t.yaml")
        var dumped = ""
        dump(spec, to: &dumped)
        for text in [dumped, String(reflecting: spec)] {
            #expect(!text.contains("SECRET"), "\(text.prefix(600))")
        }
        #expect(dumped.contains("q=visible"))
        let relative = configErrors("source: { type: rest, paginate: offset, url: \"/items?access_token=tok-SECRET-7\" }")
        #expect(relative.count == 1)
        #expect(!relative.joined().contains("SECRET"), "\(relative)")
    }
}
