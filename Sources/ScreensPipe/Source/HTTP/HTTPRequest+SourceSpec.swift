extension HTTPRequest {
    /// A request carrying the transport settings of a pipeline's `source:` section:
    /// timeout, connect timeout, max response size, CA file and TLS verification.
    /// Auth and extra headers are the protocol fetcher's business (it redacts them).
    package init(method: String = "GET", url: String, headers: HTTPHeaders = [:], body: [UInt8]? = nil, source: SourceSpec) {
        self.init(
            method: method, url: url, headers: headers, body: body,
            timeout: source.timeout, connectTimeout: source.connectTimeout,
            maxResponseSize: source.maxResponseSize, caFile: source.caFile,
            verifyTLS: !source.insecureSkipTLSVerify)
    }
}
