/// What a write's journal, outbox and lock are kept per, besides the pipeline: the server
/// (credentials redacted) and the site. Never a secret.
enum WriteTarget {
    /// `http://127.0.0.1:8080 group 20143`.
    static func text(baseURL: String, groupId: Int64) -> String {
        "\(redactedURL(baseURL)) group \(groupId)"
    }
}
