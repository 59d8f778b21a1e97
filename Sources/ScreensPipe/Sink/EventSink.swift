import ScreensBus

/// The last stage: consumes the bus and writes what a reader wants to see.
protocol EventSink: Sendable {
    /// Writes events until the subscription ends. Throws `.closed` when the reader left.
    func consume(_ events: EventSubscription) async throws(OutputFile.WriteFailure)

    /// Flushes and finishes the output; `succeeded` decides whether a file is renamed
    /// into place or kept as `.partial`. Returns where a file ended up.
    func close(succeeded: Bool) throws(OutputFile.WriteFailure) -> String?
}

/// JSON lines: one selected row per line (`items`) or every event's envelope (`events`).
struct JSONLinesSink: EventSink {
    enum Mode {
        case items
        case events
    }

    let output: OutputFile
    let mode: Mode
    var projection: FieldProjection? = nil

    /// The run's resume checkpoints, for a file of rows (format items).
    var checkpoints: ResumeRun? = nil

    func consume(_ events: EventSubscription) async throws(OutputFile.WriteFailure) {
        // The writer is the buffer: rows are encoded once, in place, and go out in chunks.
        var writer = JSONWriter(reservingCapacity: OutputFile.chunkSize * 2)
        var selectedWritten = checkpoints?.resumed?.checkpoint.selected ?? 0
        var completed = false
        for await event in events {
            let value: JSONValue
            switch (mode, event) {
            case (.items, .selected(let selected)):
                value = projection?.project(selected.item) ?? selected.item
                selectedWritten += 1
            case (.items, .response):
                // A page's events start with its response: every page before it is written whole.
                if let checkpoints, checkpoints.isDue {
                    try output.write(writer.bytes)
                    writer.reset()
                    try await checkpoints.checkpoint(output: output, selectedWritten: selectedWritten, force: false)
                }
                continue
            case (.items, .finished(let finished)):
                completed = finished.succeeded
                continue
            case (.items, _): continue
            case (.events, _): value = (projection?.project(event) ?? event).envelope
            }
            writer.write(value)
            writer.writeRaw("\n")
            if writer.bytes.count >= OutputFile.chunkSize {
                try output.write(writer.bytes)
                writer.reset()
            }
        }
        try output.write(writer.bytes)
        // A run that stops short leaves the checkpoint of everything it wrote whole.
        if let checkpoints, !completed {
            try await checkpoints.checkpoint(output: output, selectedWritten: selectedWritten, force: true)
        }
    }

    func close(succeeded: Bool) throws(OutputFile.WriteFailure) -> String? {
        try output.close(succeeded: succeeded)
    }
}

/// A sink that writes nothing, for services that only subscribe to the bus.
struct DiscardSink: EventSink {
    func consume(_ events: EventSubscription) async throws(OutputFile.WriteFailure) {
        // Draining keeps the bus moving; the subscription ends when the run finishes.
        for await _ in events {}
    }

    func close(succeeded: Bool) throws(OutputFile.WriteFailure) -> String? { nil }
}
