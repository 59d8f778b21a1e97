extension HTTPRequest {
    /// Takes the transport settings of a pipeline's `source:` section: timeout, connect
    /// timeout, max response size, CA file, TLS verification, proxy and client certificate.
    /// Auth and extra headers are the HTTP fetcher's business (it redacts them).
    package mutating func applyTransportSettings(of source: SourceSpec) {
        timeout = source.timeout
        connectTimeout = source.connectTimeout
        maxResponseSize = source.maxResponseSize
        caFile = source.caFile
        verifyTLS = !source.insecureSkipTLSVerify
        proxy = source.proxy
        clientCertificate = source.clientCertificate
    }
}
