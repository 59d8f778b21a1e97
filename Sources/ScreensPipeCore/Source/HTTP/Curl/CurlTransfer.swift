internal import CCurl
import Synchronization

/// One request on one libcurl easy handle, and the response it collects.
///
/// Confinement (why `@unchecked Sendable` is sound): the handle and the response buffers
/// are configured on the sending task before submission and touched only by the loop
/// thread after it (the loop's inbox lock orders the hand-over). Only `phase` is shared,
/// and it is behind its own lock.
final class CurlTransfer: @unchecked Sendable {
    /// The result the sending task is waiting for.
    typealias Continuation = CheckedContinuation<Result<HTTPResponse, HTTPError>, Never>

    /// Where the transfer is in its life; decides who resumes the continuation.
    enum Phase {
        /// Built, not yet handed to the loop.
        case created
        /// Handed to the loop; only the loop resumes it now.
        case submitted
        /// Cancelled before submission; submission resumes it at once.
        case cancelledBeforeSubmission
        /// Resumed.
        case finished
    }

    let handle: UnsafeMutableRawPointer
    let requestDescription: String
    let phase = Mutex<Phase>(.created)
    var continuation: Continuation?

    private let url: String
    private let maxResponseSize: Int
    /// The proxy in the path, as messages show it (no credentials); nil when direct.
    private let shownProxy: String?
    /// The client certificate presented, for the messages of a TLS failure.
    private let clientCertificate: ClientCertificateSpec?
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// The streamed body of an upload, read by libcurl as it sends.
    private var uploadSource: CurlUploadSource?
    private let errorBuffer: UnsafeMutablePointer<CChar>

    private var responseHeaders = HTTPHeaders()
    private var body: [UInt8] = []
    private var responseStarted = false
    private var exceededSizeLimit = false

    /// Creates and configures the easy handle for `request`.
    init(request: HTTPRequest, userAgent: String) throws(HTTPError) {
        ensureCurlGlobalInit()
        requestDescription = request.requestDescription
        guard let handle = curl_easy_init() else {
            throw HTTPError(.other, "libcurl could not create a transfer", request: request.requestDescription)
        }
        self.handle = handle
        url = request.url
        maxResponseSize = max(0, request.maxResponseSize)
        shownProxy = request.proxy.endpoint(for: request.url)?.shownURL
        clientCertificate = request.clientCertificate
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        try configure(request, userAgent: userAgent)
    }

    /// The most one `recv` takes (libcurl's `CURLOPT_BUFFERSIZE`, set before the transfer
    /// starts; the most libcurl allowed before 7.88). Allocated once per transfer, or from
    /// 8.7 on once per multi handle for all of them, and touched only as far as the socket
    /// fills it.
    static let receiveBufferSize = 512 << 10

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    // MARK: Configuration

    private func configure(_ request: HTTPRequest, userAgent: String) throws(HTTPError) {
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        try set(CURLOPT_URL, request.url)
        try set(CURLOPT_PROTOCOLS_STR, "http,https")
        try set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        // Signals are process-wide; a multi-threaded process must not let libcurl use them.
        try set(CURLOPT_NOSIGNAL, 1)
        try set(CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorBuffer))
        try set(CURLOPT_USERAGENT, userAgent)
        try set(CURLOPT_ACCEPT_ENCODING, "")
        try set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        try set(CURLOPT_TCP_KEEPALIVE, 1)
        try set(CURLOPT_TCP_KEEPIDLE, 30)
        try set(CURLOPT_TCP_KEEPINTVL, 15)
        try set(CURLOPT_TCP_NODELAY, 1)
        // libcurl reads the socket 16 KiB at a time by default: a page of a megabyte cost 60
        // `recv` and 60 `poll` calls. Reading up to what the socket holds takes a few.
        try set(CURLOPT_BUFFERSIZE, Self.receiveBufferSize)

        if let timeout = request.timeout { try set(CURLOPT_TIMEOUT_MS, timeout.wholeMilliseconds) }
        if let connectTimeout = request.connectTimeout {
            try set(CURLOPT_CONNECTTIMEOUT_MS, connectTimeout.wholeMilliseconds)
        }
        if let lowSpeed = request.lowSpeed {
            try set(CURLOPT_LOW_SPEED_LIMIT, max(1, lowSpeed.bytesPerSecond))
            try set(CURLOPT_LOW_SPEED_TIME, max(1, Int(lowSpeed.duration.components.seconds)))
        }
        try setCheckingResult(screens_curl_easy_setopt_off_t(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(maxResponseSize)))

        try set(CURLOPT_SSL_VERIFYPEER, request.verifyTLS ? 1 : 0)
        try set(CURLOPT_SSL_VERIFYHOST, request.verifyTLS ? 2 : 0)
        if let caFile = request.caFile { try set(CURLOPT_CAINFO, caFile) }

        // Credentials never follow a redirect to another host.
        try set(CURLOPT_UNRESTRICTED_AUTH, 0)
        try configureProxy(request)
        try configureClientCertificate(request)
        try set(CURLOPT_FOLLOWLOCATION, request.followRedirects ? 1 : 0)
        if request.freshConnection {
            // libcurl silently sends a request again when a reused connection dies before the
            // answer; on a new connection it does not, so a write is sent exactly once.
            try set(CURLOPT_FRESH_CONNECT, 1)
            try set(CURLOPT_FORBID_REUSE, 1)
        }
        if request.followRedirects { try set(CURLOPT_MAXREDIRS, 10) }

        try configureMethodAndBody(request)
        try configureHeaders(request.headers)

        try setCheckingResult(
            screens_curl_easy_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION) { buffer, size, count, userdata in
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata!).takeUnretainedValue()
                return transfer.receiveBody(UnsafeRawBufferPointer(start: buffer, count: size * count))
            })
        try set(CURLOPT_WRITEDATA, userdata)
        try setCheckingResult(
            screens_curl_easy_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION) { buffer, size, count, userdata in
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata!).takeUnretainedValue()
                return transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: buffer, count: size * count))
            })
        try set(CURLOPT_HEADERDATA, userdata)
    }

    /// The proxy is resolved here (``ProxySpec/endpoint(for:environment:)``), never by
    /// libcurl from the environment: the plain-http credential rule (``CredentialPolicy``)
    /// and this transfer then agree on whether a proxy is in the path.
    private func configureProxy(_ request: HTTPRequest) throws(HTTPError) {
        guard let proxy = request.proxy.endpoint(for: request.url) else {
            // "" turns off libcurl's own reading of http_proxy, https_proxy and all_proxy.
            try set(CURLOPT_PROXY, "")
            return
        }
        try set(CURLOPT_PROXY, proxy.url)
        try set(CURLOPT_NOPROXY, "")
        try set(CURLOPT_PROXY_SSL_VERIFYPEER, 1)
        try set(CURLOPT_PROXY_SSL_VERIFYHOST, 2)
        if let caFile = request.caFile { try set(CURLOPT_PROXY_CAINFO, caFile) }
        // An https origin is always tunnelled (CONNECT): the proxy sees its host name only.
        if URLParts(request.url).schemeName == "https" { try set(CURLOPT_HTTPPROXYTUNNEL, 1) }
        if let username = proxy.username {
            // Options of their own, so the credentials go to the proxy only, in
            // Proxy-Authorization, and never into a URL that a message could show.
            try set(CURLOPT_PROXYUSERNAME, username)
            try set(CURLOPT_PROXYPASSWORD, proxy.password?.revealed ?? "")
        }
    }

    private func configureClientCertificate(_ request: HTTPRequest) throws(HTTPError) {
        guard let certificate = request.clientCertificate else { return }
        try set(CURLOPT_SSLCERT, certificate.certificateFile)
        try set(CURLOPT_SSLCERTTYPE, "PEM")
        try set(CURLOPT_SSLKEY, certificate.effectiveKeyFile)
        try set(CURLOPT_SSLKEYTYPE, "PEM")
        if let passphrase = certificate.keyPassphrase { try set(CURLOPT_KEYPASSWD, passphrase.revealed) }
    }

    private func configureMethodAndBody(_ request: HTTPRequest) throws(HTTPError) {
        let method = request.method.uppercased()
        if let upload = request.upload {
            let source = try CurlUploadSource(upload, requestDescription: requestDescription)
            uploadSource = source
            try setCheckingResult(source.configure(handle))
            if method != "POST" { try set(CURLOPT_CUSTOMREQUEST, request.method) }
        } else if let body = request.body {
            try setCheckingResult(screens_curl_easy_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
            // COPYPOSTFIELDS copies the bytes now, so the body need not outlive this call.
            let code = body.withUnsafeBytes { bytes -> CURLcode in
                let emptyBody: StaticString = ""
                let pointer = bytes.baseAddress ?? UnsafeRawPointer(emptyBody.utf8Start)
                return screens_curl_easy_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: pointer))
            }
            try setCheckingResult(code)
            if method != "POST" { try set(CURLOPT_CUSTOMREQUEST, request.method) }
        } else {
            switch method {
            case "GET": try set(CURLOPT_HTTPGET, 1)
            case "HEAD": try set(CURLOPT_NOBODY, 1)
            default: try set(CURLOPT_CUSTOMREQUEST, request.method)
            }
        }
    }

    private func configureHeaders(_ headers: HTTPHeaders) throws(HTTPError) {
        var lines = headers.fields.map { field in
            // "Name;" is libcurl's way to send a header with an empty value.
            field.value.isEmpty ? "\(field.name);" : "\(field.name): \(field.value)"
        }
        // libcurl sends "Expect: 100-continue" for large bodies and waits up to 1 s for a 100
        // that many servers never send; an empty Expect turns that off.
        if !headers.contains("Expect") { lines.append("Expect:") }
        for line in lines {
            guard let appended = curl_slist_append(headerList, line) else {
                throw HTTPError(.other, "libcurl could not add a request header", request: requestDescription)
            }
            headerList = appended
        }
        try setCheckingResult(screens_curl_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList))
    }

    private func set(_ option: CURLoption, _ value: Int) throws(HTTPError) {
        try setCheckingResult(screens_curl_easy_setopt_long(handle, option, value))
    }

    private func set(_ option: CURLoption, _ value: String) throws(HTTPError) {
        try setCheckingResult(screens_curl_easy_setopt_string(handle, option, value))
    }

    private func set(_ option: CURLoption, _ value: UnsafeMutableRawPointer) throws(HTTPError) {
        try setCheckingResult(screens_curl_easy_setopt_pointer(handle, option, value))
    }

    private func setCheckingResult(_ code: CURLcode) throws(HTTPError) {
        guard code == CURLE_OK else {
            throw HTTPError(.other, "cannot configure the request: \(curlErrorText(code))", request: requestDescription)
        }
    }

    // MARK: Callbacks (loop thread)

    /// Appends body bytes; refusing them (returning less than offered) aborts the transfer.
    private func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        // MAXFILESIZE only works when the size is announced; chunked or compressed bodies
        // are capped here.
        guard body.count + bytes.count <= maxResponseSize else {
            exceededSizeLimit = true
            return 0
        }
        body.append(contentsOf: bytes)
        return bytes.count
    }

    /// Collects one header line. Each status line starts a new response (a 100 Continue or
    /// a followed redirect comes before the final one), so it drops what came before.
    private func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Int {
        var line = Substring(String(decoding: bytes, as: UTF8.self))
        while let last = line.last, last.isNewline { line.removeLast() }
        if line.hasPrefix("HTTP/") {
            responseStarted = true
            responseHeaders = HTTPHeaders()
            body.removeAll(keepingCapacity: true)
        } else if let colon = line.firstIndex(of: ":") {
            let name = String(line[..<colon])
            let value = String(line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" })
            responseHeaders.add(name: name, value: value)
            if body.isEmpty, HTTPHeaders.namesMatch(name, "Content-Length"), let length = Int(value), length > 0 {
                body.reserveCapacity(min(length, maxResponseSize))
            }
        }
        return bytes.count
    }

    // MARK: Completion (loop thread)

    /// The outcome of the finished transfer whose libcurl result is `code`.
    func result(for code: CURLcode) -> Result<HTTPResponse, HTTPError> {
        if code == CURLE_ABORTED_BY_CALLBACK, let failure = uploadSource?.failure {
            return .failure(HTTPError(.other, failure, request: requestDescription))
        }
        guard code == CURLE_OK else {
            let kind = HTTPError.Kind(curlCode: code, responseStarted: responseStarted, exceededSizeLimit: exceededSizeLimit)
            var message = curlErrorText(code)
            let detail = String(cString: errorBuffer)
            if !detail.isEmpty { message += ": " + detail }
            if kind == .tooLarge { message += " (limit \(maxResponseSize) bytes)" }
            if let refusal = proxyRefusal() { return .failure(refusal) }
            if kind == .tls, let certificate = clientCertificate, [CURLE_SSL_CERTPROBLEM, CURLE_SSL_CLIENTCERT].contains(code) {
                message += " (client-cert '\(certificate.certificateFile)', client-key '\(certificate.effectiveKeyFile)': "
                    + "are they PEM, does the key belong to the certificate, is client-key-passphrase right?)"
            }
            return .failure(HTTPError(kind, scrubbingUserinfo(of: url, from: message), request: requestDescription))
        }
        var status = 0
        _ = screens_curl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        if status == 407, let shownProxy {
            // Only a proxy sends 407; libcurl has already answered it once with the
            // configured credentials, so asking again will not help.
            return .failure(HTTPError(.proxy, "the proxy \(shownProxy) \(Self.proxyAuthenticationAdvice)", request: requestDescription))
        }
        var effectiveURL: UnsafeMutablePointer<CChar>?
        _ = screens_curl_easy_getinfo_string(handle, CURLINFO_EFFECTIVE_URL, &effectiveURL)
        return .success(
            HTTPResponse(
                status: status, headers: responseHeaders, body: body,
                effectiveURL: effectiveURL.map { String(cString: $0) } ?? url))
    }

    private static let proxyAuthenticationAdvice =
        "asks for credentials (HTTP 407 Proxy Authentication Required, or 401 to a CONNECT): set the proxy's username and password (proxy: { url, username, password }), or check them"

    /// The proxy's answer to the tunnel (`CONNECT`) when it was not a success: the request
    /// never reached the server, and the answer (a 407, a redirect, an error page) is the
    /// proxy's, never followed or read as the server's.
    private func proxyRefusal() -> HTTPError? {
        guard let shownProxy else { return nil }
        var connectStatus = 0
        _ = screens_curl_easy_getinfo_long(handle, CURLINFO_HTTP_CONNECTCODE, &connectStatus)
        guard connectStatus != 0, !(200..<300).contains(connectStatus) else { return nil }
        let message =
            // tinyproxy answers a CONNECT with bad credentials 401, not 407.
            [401, 407].contains(connectStatus)
            ? "the proxy \(shownProxy) \(Self.proxyAuthenticationAdvice)"
            : "the proxy \(shownProxy) refused the tunnel to the server (CONNECT answered HTTP \(connectStatus); a proxy's redirect is not followed)"
        return HTTPError(.proxy, message, request: requestDescription)
    }

    /// Resumes the waiting task with `result`, exactly once.
    func finish(_ result: Result<HTTPResponse, HTTPError>) {
        phase.withLock { $0 = .finished }
        continuation?.resume(returning: result)
        continuation = nil
    }

    /// The error a cancelled transfer ends with.
    var cancellationError: HTTPError {
        HTTPError(.cancelled, "the request was cancelled", request: requestDescription)
    }
}

extension Duration {
    /// The duration in whole milliseconds, rounded up so a short positive limit never
    /// becomes 0 (which libcurl reads as "no limit").
    var wholeMilliseconds: Int {
        let (seconds, attoseconds) = components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int(max(1, milliseconds))
    }
}
