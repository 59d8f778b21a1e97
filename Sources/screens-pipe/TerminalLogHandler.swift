import Logging

/// `-v`: swift-log records as plain lines on stderr (`screens-pipe: debug: page 0: POST ...`),
/// erasing the progress line first so the two never share a line.
///
/// The source logs requests already redacted; this handler adds nothing secret of its own.
struct TerminalLogHandler: LogHandler {
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?
    let progress: ProgressLine?

    init(level: Logger.Level, progress: ProgressLine?) {
        self.logLevel = level
        self.progress = progress
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let own = event.metadata { merged.merge(own) { $1 } }
        let fields = merged.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
        progress?.clear()
        Terminal.write("screens-pipe: \(event.level): \(event.message)\(fields)\n")
        progress?.redraw()
    }
}
