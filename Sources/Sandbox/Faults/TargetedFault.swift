extension FaultPlan {
    /// Whether ``failMatching`` picks this request: its target (path and query, as sent)
    /// or its body contains the text.
    func targets(uri: String, body: [UInt8]) -> Bool {
        guard let text = failMatching, !text.isEmpty else { return false }
        if uri.contains(text) { return true }
        let needle = Array(text.utf8)
        guard body.count >= needle.count else { return false }
        return body.indices.dropLast(needle.count - 1).contains { body[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
