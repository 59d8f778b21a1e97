internal import CCurl

/// libcurl's process-wide initialisation, done exactly once, before the first handle.
///
/// `curl_global_init` is not thread-safe against itself; a global `let` is initialised
/// lazily and atomically by the Swift runtime, which gives the once-only guarantee.
let curlGlobalInitialisation: CURLcode = curl_global_init(Int(CURL_GLOBAL_ALL))

/// Runs the global initialisation if it has not run yet.
func ensureCurlGlobalInit() {
    _ = curlGlobalInitialisation
}
