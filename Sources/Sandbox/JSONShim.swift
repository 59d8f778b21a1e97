// TEMPORARY shim until the json branch lands; deleted before the final commit.
import ScreensBus

struct JSONParseError: Error, CustomStringConvertible {
    var offset: Int
    var message: String
    var description: String { "invalid JSON at byte \(offset): \(message)" }
}

extension JSONValue {
    init(parsing string: String) throws { try self.init(parsing: Array(string.utf8)) }
    init(parsing bytes: [UInt8]) throws {
        var p = ShimParser(bytes: bytes)
        p.skip()
        let v = try p.value()
        p.skip()
        guard p.i == bytes.count else { throw JSONParseError(offset: p.i, message: "trailing") }
        self = v
    }
    var jsonBytes: [UInt8] { var w = JSONWriter(); w.write(self); return w.bytes }
    var jsonString: String { String(decoding: jsonBytes, as: UTF8.self) }
}

struct ShimParser {
    let bytes: [UInt8]
    var i = 0
    mutating func skip() { while i < bytes.count, [9, 10, 13, 32].contains(bytes[i]) { i += 1 } }
    func fail(_ m: String) -> JSONParseError { JSONParseError(offset: i, message: m) }
    mutating func lit(_ s: String, _ v: JSONValue) throws -> JSONValue {
        let u = Array(s.utf8)
        guard i + u.count <= bytes.count, Array(bytes[i..<i + u.count]) == u else { throw fail("bad literal") }
        i += u.count
        return v
    }
    mutating func value() throws -> JSONValue {
        guard i < bytes.count else { throw fail("end") }
        switch bytes[i] {
        case UInt8(ascii: "{"):
            i += 1; skip()
            var o = JSONObject()
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(o) }
            while true {
                skip()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("key") }
                let k = try string()
                skip()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("colon") }
                i += 1; skip()
                o[k] = try value()
                skip()
                guard i < bytes.count else { throw fail("end") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(o) }
                throw fail("object")
            }
        case UInt8(ascii: "["):
            i += 1; skip()
            var a: [JSONValue] = []
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(a) }
            while true {
                skip()
                a.append(try value())
                skip()
                guard i < bytes.count else { throw fail("end") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(a) }
                throw fail("array")
            }
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try lit("true", .bool(true))
        case UInt8(ascii: "f"): return try lit("false", .bool(false))
        case UInt8(ascii: "n"): return try lit("null", .null)
        default:
            let s = i
            while i < bytes.count, "+-0123456789.eE".utf8.contains(bytes[i]) { i += 1 }
            let t = String(decoding: bytes[s..<i], as: UTF8.self)
            if t.isEmpty { throw fail("unexpected") }
            if t.contains(where: { ".eE".contains($0) }) {
                guard let d = Double(t) else { throw fail("number") }
                return .double(d)
            }
            if let n = Int64(t) { return .int(n) }
            return .number(t)
        }
    }
    mutating func string() throws -> String {
        i += 1
        var out: [UInt8] = []
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: "\"") { i += 1; return String(decoding: out, as: UTF8.self) }
            if c < 0x20 { throw fail("control") }
            if c == UInt8(ascii: "\\") {
                i += 1
                guard i < bytes.count else { throw fail("escape") }
                let e = bytes[i]; i += 1
                switch e {
                case UInt8(ascii: "n"): out.append(10)
                case UInt8(ascii: "t"): out.append(9)
                case UInt8(ascii: "r"): out.append(13)
                case UInt8(ascii: "b"): out.append(8)
                case UInt8(ascii: "f"): out.append(12)
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if code >= 0xD800, code < 0xDC00, i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\") {
                        i += 2
                        let low = try hex4()
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    out.append(contentsOf: Array(String(Character(Unicode.Scalar(code) ?? "?")).utf8))
                default: out.append(e)
                }
                continue
            }
            out.append(c); i += 1
        }
        throw fail("unterminated")
    }
    mutating func hex4() throws -> UInt32 {
        guard i + 4 <= bytes.count, let v = UInt32(String(decoding: bytes[i..<i + 4], as: UTF8.self), radix: 16) else { throw fail("hex") }
        i += 4
        return v
    }
}

struct JSONWriter {
    var bytes: [UInt8] = []
    mutating func write(_ value: JSONValue) {
        switch value {
        case .null: bytes += "null".utf8
        case .bool(let b): bytes += (b ? "true" : "false").utf8
        case .int(let n): bytes += String(n).utf8
        case .double(let d): bytes += "\(d)".utf8
        case .number(let t): bytes += t.utf8
        case .string(let s): str(s)
        case .array(let a):
            bytes.append(UInt8(ascii: "["))
            for (k, v) in a.enumerated() { if k > 0 { bytes.append(UInt8(ascii: ",")) }; write(v) }
            bytes.append(UInt8(ascii: "]"))
        case .object(let o):
            bytes.append(UInt8(ascii: "{"))
            for (k, m) in o.enumerated() {
                if k > 0 { bytes.append(UInt8(ascii: ",")) }
                str(m.key); bytes.append(UInt8(ascii: ":")); write(m.value)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }
    mutating func str(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        for c in s.utf8 {
            switch c {
            case UInt8(ascii: "\""): bytes += "\\\"".utf8
            case UInt8(ascii: "\\"): bytes += "\\\\".utf8
            case 10: bytes += "\\n".utf8
            case 13: bytes += "\\r".utf8
            case 9: bytes += "\\t".utf8
            case 0..<0x20:
                let h = String(c, radix: 16)
                bytes += ("\\u" + String(repeating: "0", count: 4 - h.count) + h).utf8
            default: bytes.append(c)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
