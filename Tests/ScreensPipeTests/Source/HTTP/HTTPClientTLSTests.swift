import Foundation
import TestSupport
import Testing

@testable import ScreensPipeCore
import ScreensPipe

/// A self-signed certificate for 127.0.0.1 made with the openssl command line tool.
private func makeSelfSignedCertificate() throws -> (directory: URL, certificate: String, key: String) {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("screens-pipe-tls-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let certificate = directory.appendingPathComponent("cert.pem").path
    let key = directory.appendingPathComponent("key.pem").path
    let openssl = ChildProcess()
    openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    openssl.arguments = [
        "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
        "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificate,
    ]
    openssl.standardError = FileHandle.nullDevice
    openssl.standardOutput = FileHandle.nullDevice
    try openssl.run()
    openssl.waitUntilExit()
    guard openssl.terminationStatus == 0 else { throw TestServerError(message: "openssl could not make a certificate") }
    return (directory, certificate, key)
}

@Suite("HTTP client TLS")
struct HTTPClientTLSTests {
    @Test func verificationIsOnByDefaultAndTheCAFileOrAnExplicitOptOutPassesIt() async throws {
        // openssl runs for a while: wait for it on a thread of its own, not the pool's.
        let tls = try await onOwnThread { try makeSelfSignedCertificate() }
        defer { try? FileManager.default.removeItem(at: tls.directory) }
        let server = try await TestHTTPServer.start(tls: (tls.certificate, tls.key))
        defer { server.stop() }
        try await withClient { client in

            let untrusted = await httpError { () async throws(HTTPError) in try await client.send(HTTPRequest(url: server.url("/echo"))) }
            #expect(untrusted?.kind == .tls)
            #expect(untrusted?.isConnectivity == false)

            let trusted = try await client.send(HTTPRequest(url: server.url("/echo"), caFile: tls.certificate))
            #expect(trusted.status == 200)
            #expect(trusted.effectiveURL.hasPrefix("https://127.0.0.1:"))

            let unverified = try await client.send(HTTPRequest(url: server.url("/echo"), verifyTLS: false))
            #expect(unverified.status == 200)
        }
    }

    @Test func theSourceSpecCarriesTheTransportSettings() {
        let spec = SourceSpec(
            type: .file(FileSourceSpec(path: "x.json")), timeout: .seconds(7), connectTimeout: .seconds(2),
            maxResponseSize: 1234, caFile: "/etc/ca.pem", insecureSkipTLSVerify: true)
        var request = HTTPRequest(method: "POST", url: "https://h/")
        request.applyTransportSettings(of: spec)
        #expect(request.timeout == .seconds(7))
        #expect(request.connectTimeout == .seconds(2))
        #expect(request.maxResponseSize == 1234)
        #expect(request.caFile == "/etc/ca.pem")
        #expect(!request.verifyTLS)
        #expect(!request.followRedirects)
    }
}
