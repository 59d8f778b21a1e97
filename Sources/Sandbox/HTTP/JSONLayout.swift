/// How the sandbox lays out the JSON it answers with: what a real server sends differs
/// only in the whitespace between tokens, and clients must read every layout alike.
public enum SandboxJSONLayout: String, Sendable, CaseIterable {
    /// No whitespace between tokens, as JSON-WS answers.
    case compact
    /// A space after each `,` and `:` on one line, as many REST APIs (and Python's
    /// `json.dumps`) answer.
    case spaced
    /// Two-space indentation, one member or element a line, `"name": value`, `{}` and `[]`
    /// for empty containers: as a portal's headless APIs answer `curl` (the form Liferay's
    /// documentation shows).
    case pretty

    /// `json` in this layout, without a trailing newline: only the whitespace between
    /// tokens changes, every string, number and literal is copied byte for byte, so both
    /// forms parse to the same value. Nil when `json` is not one balanced JSON text (an
    /// answer the sandbox sends as it is).
    ///
    /// It works on the bytes rather than on a parsed value: `make bench` serves a million
    /// rows in each layout, and a parse and rewrite made the sandbox, not the client, what
    /// the pretty figures measured.
    func relaid(_ json: [UInt8]) -> [UInt8]? {
        var writer = LayoutWriter(layout: self, capacity: json.count)
        return json.withUnsafeBufferPointer { writer.relay($0) } ? writer.out : nil
    }
}

/// The tokens of one JSON text written out again with a layout's whitespace.
private struct LayoutWriter {
    let layout: SandboxJSONLayout
    var out: [UInt8] = []
    /// The closing bracket of each container open at this point.
    var open: [UInt8] = []

    init(layout: SandboxJSONLayout, capacity: Int) {
        self.layout = layout
        out.reserveCapacity(layout == .pretty ? capacity * 2 : capacity + capacity / 4)
    }

    mutating func relay(_ json: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        var values = 0
        while index < json.count {
            let byte = json[index]
            switch byte {
            case 0x20, 0x0A, 0x0D, 0x09:
                index += 1
                continue
            case UInt8(ascii: "\""):
                guard let end = Self.stringEnd(json, from: index) else { return false }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: json[index..<end]))
                index = end
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let close = byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                var next = index + 1
                while next < json.count, Self.isWhitespace(json[next]) { next += 1 }
                out.append(byte)
                if next < json.count, json[next] == close {
                    out.append(close)
                    index = next + 1
                } else {
                    open.append(close)
                    if layout == .pretty { newLine() }
                    index += 1
                    continue
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard open.last == byte else { return false }
                open.removeLast()
                if layout == .pretty { newLine() }
                out.append(byte)
                index += 1
            case UInt8(ascii: ","):
                guard !open.isEmpty else { return false }
                out.append(byte)
                switch layout {
                case .compact: break
                case .spaced: out.append(0x20)
                case .pretty: newLine()
                }
                index += 1
                continue
            case UInt8(ascii: ":"):
                guard open.last == UInt8(ascii: "}") else { return false }
                out.append(byte)
                if layout != .compact { out.append(0x20) }
                index += 1
                continue
            default:
                // A number or a literal: copied up to the next whitespace or structural byte.
                var end = index + 1
                while end < json.count, !Self.endsScalar(json[end]) { end += 1 }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: json[index..<end]))
                index = end
            }
            // A value ended at the top level: a JSON text is exactly one.
            if open.isEmpty {
                values += 1
                guard values == 1 else { return false }
            }
        }
        return values == 1 && open.isEmpty
    }

    /// A line break and the indentation of the containers open.
    private mutating func newLine() {
        out.append(0x0A)
        out.append(contentsOf: repeatElement(0x20, count: open.count * 2))
    }

    /// The index after the quote that closes the string opening at `start`.
    private static func stringEnd(_ json: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var index = start + 1
        while index < json.count {
            switch json[index] {
            case UInt8(ascii: "\""): return index + 1
            case UInt8(ascii: "\\"): index += 2
            default: index += 1
            }
        }
        return nil
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    private static func endsScalar(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x20, 0x0A, 0x0D, 0x09, UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "]"), UInt8(ascii: "}"),
            UInt8(ascii: "["), UInt8(ascii: "{"), UInt8(ascii: "\""):
            true
        default: false
        }
    }
}
