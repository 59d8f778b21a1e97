internal import Foundation

/// `client-cert`, `client-key` and `client-key-passphrase`: the certificate the pipeline
/// presents when a server (or a TLS gateway in front of it) asks for one.
///
/// ```yaml
/// client-cert: certs/pipeline.pem            # PEM: the certificate (and any intermediates)
/// client-key: certs/pipeline.key             # PEM: its private key; omitted when in client-cert
/// client-key-passphrase: ${CLIENT_KEY_PASSPHRASE}
/// ```
public struct ClientCertificateSpec: Sendable, Hashable {
    /// The PEM file of the certificate.
    public var certificateFile: String
    /// The PEM file of the private key; nil when ``certificateFile`` holds it too.
    public var keyFile: String?
    /// The passphrase of an encrypted key.
    public var keyPassphrase: Secret?

    /// Creates a client certificate setting.
    public init(certificateFile: String, keyFile: String? = nil, keyPassphrase: Secret? = nil) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.keyPassphrase = keyPassphrase
    }

    /// The file the private key is read from.
    var effectiveKeyFile: String { keyFile ?? certificateFile }

    /// Checks, before the first request, that the files can be read and hold what they
    /// should: a certificate, and a private key (encrypted only with a passphrase given).
    /// Whether key and certificate belong together is decided by the TLS library at the
    /// first connection, whose error names both files (``CurlTransfer``).
    func check() throws(ScreensPipeError) {
        let certificate = try Self.read(certificateFile, what: "client-cert")
        guard certificate.contains("-----BEGIN CERTIFICATE-----") else {
            throw .configuration("client-cert '\(certificateFile)' holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
        let key = keyFile == nil ? certificate : try Self.read(effectiveKeyFile, what: "client-key")
        let keyMarkers = ["PRIVATE KEY-----"]
        guard keyMarkers.contains(where: key.contains) else {
            throw .configuration(
                "client-key '\(effectiveKeyFile)' holds no PEM private key (-----BEGIN PRIVATE KEY-----)"
                    + (keyFile == nil ? "; give the key with client-key" : ""))
        }
        let encrypted = key.contains("ENCRYPTED PRIVATE KEY-----") || key.contains("Proc-Type: 4,ENCRYPTED")
        if encrypted, keyPassphrase == nil {
            throw .configuration(
                "client-key '\(effectiveKeyFile)' is encrypted: set client-key-passphrase (for example ${CLIENT_KEY_PASSPHRASE})")
        }
    }

    /// Files larger than this are not certificates: refused rather than read whole.
    static let maximumFileSize = 1 << 20

    private static func read(_ path: String, what: String) throws(ScreensPipeError) -> String {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        guard let attributes, let size = attributes[.size] as? Int, let data = FileManager.default.contents(atPath: path) else {
            throw .configuration("cannot read \(what) '\(path)': \(FileManager.default.fileExists(atPath: path) ? "permission denied" : "no such file")")
        }
        guard size <= maximumFileSize, data.count <= maximumFileSize else {
            throw .configuration("\(what) '\(path)' is larger than \(maximumFileSize) bytes: not a PEM file")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
