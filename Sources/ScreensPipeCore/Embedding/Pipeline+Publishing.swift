import ScreensBus

extension Pipeline {
    /// Publishes an event of the embedding service on this pipeline's bus, named after the
    /// pipeline, so every subscriber (and an `events` sink) sees it in order with the run's own.
    ///
    /// Events published after the run finished are dropped, as on any finished bus.
    public func publish(_ name: String, payload: JSONValue = .null) async {
        await bus.publish(custom: name, pipeline: spec.name, payload: payload)
    }
}
