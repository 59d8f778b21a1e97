import ArgumentParser
import Foundation
import Logging
import ScreensBus
import ScreensPipe

/// How log records are written on stderr (`--log-format`).
enum LogFormat: String, ExpressibleByArgument, CaseIterable {
    /// `2026-11-22T17:20:03.120Z screens-pipe: debug: page 0: POST ...`
    case text
    /// One JSON object per line: `{"time":...,"level":"debug","message":...}` plus metadata.
    case json
}

/// `-v` and `SCREENS_PIPE_LOG_LEVEL`: swift-log records as lines on stderr, each with its
/// time (RFC 3339, UTC), erasing the progress line first so the two never share a line.
///
/// The source logs requests already redacted; this handler adds nothing secret of its own.
struct TerminalLogHandler: LogHandler {
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?
    let progress: ProgressLine?
    let format: LogFormat

    init(level: Logger.Level, progress: ProgressLine?, format: LogFormat = .text) {
        self.logLevel = level
        self.progress = progress
        self.format = format
    }

    /// The variable that sets the level when neither `-v` nor `-q` is given.
    static let levelVariable = "SCREENS_PIPE_LOG_LEVEL"

    /// The level `SCREENS_PIPE_LOG_LEVEL` names, nil when unset; a usage error when it
    /// names no level.
    static func level(from variables: [String: String]) throws -> Logger.Level? {
        guard let text = variables[levelVariable], !text.isEmpty else { return nil }
        guard let level = Logger.Level(rawValue: text.lowercased()) else {
            let names = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
            throw ValidationError("\(levelVariable) must be one of \(names), not '\(sanitizedServerText(text, limit: 40))'")
        }
        return level
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let own = event.metadata { merged.merge(own) { $1 } }
        let time = EventTime.text(Date())
        let line: String
        switch format {
        case .text:
            let fields = merged.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
            // One event, one line: a server's text in a message cannot act on the terminal
            // or forge a line.
            line = escapedControlCharacters("\(time) screens-pipe: \(event.level): \(event.message)\(fields)")
        case .json:
            var object: JSONObject = ["time": .string(time), "level": .string(event.level.rawValue), "message": .string("\(event.message)")]
            for (key, value) in merged.sorted(by: { $0.key < $1.key }) where object[key] == nil { object[key] = .string("\(value)") }
            line = JSONValue.object(object).jsonString
        }
        progress?.clear()
        Terminal.write(line + "\n")
        progress?.redraw()
    }
}
