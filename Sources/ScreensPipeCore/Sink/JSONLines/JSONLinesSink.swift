import ScreensBus

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

    func consume(_ events: EventSubscription) async throws(SinkFailure) {
        // The writer is the buffer: rows are encoded once, in place, and go out in chunks.
        var writer = JSONWriter(reservingCapacity: output.chunkSize * 2)
        var selectedWritten = checkpoints?.resumed?.checkpoint.selected ?? 0
        var completed = false
        // Pages arrive whole: in `items` mode their rows are written straight from the
        // page, with no event made per row.
        for await message in events.messages {
            switch (mode, message) {
            case (.items, .page(let page)):
                // Every page before this one is written whole: a checkpoint may go here.
                try await checkpointIfDue(&writer, selectedWritten: selectedWritten)
                // A page of rows kept as texts, all selected: each one's text copied from
                // the buffer they share, a line each, and none parsed.
                if projection == nil,
                    let written = try page.withSelectedTexts({ (text, ranges) throws(SinkFailure) -> Int in
                        // Rows written compactly from a formatted page are lines already.
                        if let run = JSONElementTexts.lineRun(in: text, ranges) {
                            try output.writeChunks(from: &writer.bytes, then: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: text[run])))
                            return ranges.count
                        }
                        for range in ranges {
                            writer.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[range]))
                            try endLine(of: &writer)
                        }
                        return ranges.count
                    })
                {
                    selectedWritten += written
                    continue
                }
                // Otherwise by index: rows kept as texts are written from them, never parsed.
                for index in 0..<page.outcomeCount where page.isSelected(index) {
                    selectedWritten += 1
                    if projection == nil, let text = page.text(ofOutcome: index) {
                        // A row nothing changed passes through as it was received.
                        writer.bytes.append(contentsOf: text)
                        try endLine(of: &writer)
                    } else if case .selected(_, let item) = page.outcome(at: index) {
                        try writeLine(projection?.project(item) ?? item, to: &writer)
                    }
                }
            case (.items, .event(.selected(let selected))):
                selectedWritten += 1
                try writeLine(projection?.project(selected.item) ?? selected.item, to: &writer)
            case (.items, .event(.response)):
                // A page published as separate events starts with its response.
                try await checkpointIfDue(&writer, selectedWritten: selectedWritten)
            case (.items, .event(.finished(let finished))):
                completed = finished.succeeded
            case (.items, .event):
                continue
            case (.events, .page(let page)):
                for event in page.events {
                    try writeLine((projection?.project(event) ?? event).envelope, to: &writer)
                }
            case (.events, .event(let event)):
                try writeLine((projection?.project(event) ?? event).envelope, to: &writer)
            }
        }
        try output.write(writer.bytes)
        // A run that stops short leaves the checkpoint of everything it wrote whole.
        if let checkpoints, !completed {
            try await checkpoints.checkpoint(output: output, selectedWritten: selectedWritten, force: true)
        }
    }

    /// At a page boundary (every earlier page written whole): writes what is buffered and
    /// commits a resume checkpoint when one is due.
    private func checkpointIfDue(_ writer: inout JSONWriter, selectedWritten: Int) async throws(SinkFailure) {
        guard let checkpoints, checkpoints.isDue else { return }
        try output.write(writer.bytes)
        writer.reset()
        try await checkpoints.checkpoint(output: output, selectedWritten: selectedWritten, force: false)
    }

    /// Appends one line, and hands the writer's bytes to the output once a chunk is full.
    private func writeLine(_ value: JSONValue, to writer: inout JSONWriter) throws(SinkFailure) {
        writer.write(value)
        try endLine(of: &writer)
    }

    private func endLine(of writer: inout JSONWriter) throws(SinkFailure) {
        writer.writeRaw("\n")
        if writer.bytes.count >= output.chunkSize { try output.writeChunks(from: &writer.bytes) }
    }

    func close(succeeded: Bool) throws(SinkFailure) -> String? {
        try output.close(succeeded: succeeded)
    }
}
