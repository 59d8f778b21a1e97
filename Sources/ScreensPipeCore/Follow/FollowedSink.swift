/// A registered sink that can be a follow's output (`run --follow` with its `sink:`): an
/// `added` or `updated` change writes its row, a `deleted` one removes its key, and each
/// batch is durable together with the number of its last change, so ``ChangeOutput/lastSequence()``
/// tells a restarted follow which changes the sink already holds.
package protocol ChangeSinkConfiguration: SinkConfiguration {
    /// The fields the sink identifies a row by: the follow is keyed by them, as a deletion
    /// carries only its key.
    var changeKeyFields: [String] { get }
    /// Opens the sink as the output of the follow whose state key is `follower`: the sink
    /// keeps its last change number under that name.
    func openChangeOutput(follower: String, environment: [String: String]) async throws(ScreensPipeError) -> any ClosableChangeOutput
}

/// A ``ChangeOutput`` holding a connection, closed once the follow ends.
package protocol ClosableChangeOutput: ChangeOutput {
    /// Ends the output's connection; every batch written is durable already.
    func close() async
}
