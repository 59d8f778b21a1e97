internal import CCurl

extension HTTPError.Kind {
    /// The kind of a failed transfer's libcurl result.
    ///
    /// - Parameters:
    ///   - responseStarted: a status line had arrived, so a receive error cut a body short
    ///     (truncated) rather than refusing an answer (reset).
    ///   - exceededSizeLimit: the write callback refused the body for being over the cap.
    init(curlCode code: CURLcode, responseStarted: Bool, exceededSizeLimit: Bool) {
        switch code {
        case CURLE_COULDNT_CONNECT:
            self = .connectionRefused
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            self = .dns
        case CURLE_OPERATION_TIMEDOUT:
            self = .timeout
        case CURLE_PARTIAL_FILE:
            self = .truncated
        case CURLE_RECV_ERROR, CURLE_HTTP2_STREAM, CURLE_HTTP2:
            self = responseStarted ? .truncated : .connectionReset
        case CURLE_GOT_NOTHING, CURLE_SEND_ERROR:
            self = .connectionReset
        case CURLE_FILESIZE_EXCEEDED:
            self = .tooLarge
        case CURLE_WRITE_ERROR where exceededSizeLimit:
            self = .tooLarge
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
            CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_USE_SSL_FAILED, CURLE_SSL_ENGINE_NOTFOUND,
            CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_SHUTDOWN_FAILED,
            CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
            CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT:
            self = .tls
        case CURLE_ABORTED_BY_CALLBACK:
            self = .cancelled
        default:
            self = .other
        }
    }
}

/// libcurl's text for `code`.
func curlErrorText(_ code: CURLcode) -> String {
    guard let text = curl_easy_strerror(code) else { return "libcurl error \(code.rawValue)" }
    return String(cString: text)
}
