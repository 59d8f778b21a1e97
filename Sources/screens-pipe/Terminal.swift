#if canImport(Glibc)
import Glibc
#endif

/// Writing to stderr, where every diagnostic goes (stdout carries only data).
enum Terminal {
    static func error(_ message: String) {
        write("screens-pipe: error: \(message)\n")
    }

    static func warning(_ message: String) {
        write("screens-pipe: warning: \(message)\n")
    }

    static func note(_ message: String) {
        write("\(message)\n")
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
