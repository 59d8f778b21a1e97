extension EventBus {
    /// Publishes an event of an embedding service (``PipelineEvent/custom(_:)``).
    ///
    /// Shorthand for `publish(.custom(CustomEvent(pipeline:name:payload:)))`.
    public func publish(custom name: String, pipeline: String, payload: JSONValue = .null) async {
        await publish(.custom(CustomEvent(pipeline: pipeline, name: name, payload: payload)))
    }
}
