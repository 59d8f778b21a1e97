import ScreensPipe

#if canImport(Glibc)
import Glibc
#endif

/// Writing to stderr, where every diagnostic goes (stdout carries only data).
enum Terminal {
    static func error(_ message: String) {
        write("screens-pipe: error: \(printable(message))\n")
    }

    static func warning(_ message: String) {
        write("screens-pipe: warning: \(printable(message))\n")
    }

    /// `message` as it may reach a terminal: ESC, BEL, CR and every other control
    /// character a server's text may carry into it shown as `\u{...}`; the program's own line
    /// feeds and tabs kept. Every human-facing line passes here.
    static func printable(_ message: String) -> String {
        escapedControlCharacters(message, keepingLayout: true)
    }

    /// A problem of a pipeline file: `file:line:column: message` where it has a position
    /// (the form editors jump to), else an error line like any other (`cannot read x.yaml`).
    static func problem(_ error: ScreensPipeError) {
        if error.location != nil { write("\(printable(error.description))\n") } else { self.error(error.description) }
    }

    static func note(_ message: String) {
        write("\(printable(message))\n")
    }

    static func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(2, bytes.baseAddress! + offset, bytes.count - offset)
                if written <= 0 {
                    if written < 0 && errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }

    /// The width tables fit into: `COLUMNS` when set to a positive number, else the width of
    /// the terminal `descriptor` is, else nil (a pipe or a file: columns keep their widths).
    static func columns(of descriptor: Int32, variables: [String: String]) -> Int? {
        if let text = variables["COLUMNS"], let columns = Int(text), columns > 0 { return min(columns, 100_000) }
        guard isTerminal(descriptor) else { return nil }
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    static func isTerminal(_ descriptor: Int32) -> Bool {
        isatty(descriptor) == 1
    }

    /// Colours only for a terminal, and never when `NO_COLOR` is set to anything but "" (no-color.org).
    static func colorsAllowed(on descriptor: Int32, variables: [String: String]) -> Bool {
        if let noColor = variables["NO_COLOR"], !noColor.isEmpty { return false }
        return isTerminal(descriptor)
    }
}
