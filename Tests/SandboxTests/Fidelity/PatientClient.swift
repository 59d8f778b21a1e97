extension TestHTTPClient {
    /// The same client with a receive timeout no loaded machine reaches: the fidelity suites
    /// check what the sandbox answers, not how fast.
    var patient: TestHTTPClient {
        var client = self
        client.timeout = 120
        return client
    }
}
