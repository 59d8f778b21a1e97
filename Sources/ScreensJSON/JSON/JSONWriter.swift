/// Writes compact JSON (no spaces) into a growing byte buffer.
///
/// Strings are written as raw UTF-8 with only `"`, `\` and control characters escaped;
/// doubles in their shortest round-trip form. Reuse one writer across rows with ``reset()``
/// to keep its capacity.
public struct JSONWriter: Sendable {
    /// The JSON written so far, as UTF-8.
    public var bytes: [UInt8]
    /// The size of the last value written, to size the next one's buffer (rows repeat).
    private var lastValueSize = 256

    /// Creates an empty writer.
    public init() {
        bytes = []
    }

    /// Creates an empty writer with room for `reservingCapacity` bytes.
    public init(reservingCapacity capacity: Int) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Empties the buffer, keeping its capacity.
    public mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
    }

    /// Appends `text` verbatim; for envelopes such as `{"event":` around written values.
    public mutating func writeRaw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends `value` as compact JSON.
    public mutating func write(_ value: JSONValue) {
        var buffer = JSONEncodingBuffer(capacity: lastValueSize + lastValueSize / 8)
        buffer.write(value)
        lastValueSize = buffer.count
        append(buffer)
    }

    /// Appends `integer` in decimal.
    public mutating func writeInt(_ integer: Int64) {
        var buffer = JSONEncodingBuffer(capacity: 20)
        buffer.writeInt(integer)
        append(buffer)
    }

    /// Appends `double` so that it parses back to the same value; NaN and infinities are
    /// not JSON and are written as `null`.
    public mutating func writeDouble(_ double: Double) {
        var buffer = JSONEncodingBuffer(capacity: 32)
        buffer.writeDouble(double)
        append(buffer)
    }

    /// Appends `string` quoted, escaping `"`, `\` and control characters only.
    public mutating func writeString(_ string: String) {
        var buffer = JSONEncodingBuffer(capacity: string.utf8.count * 6 + 2)
        buffer.writeString(string)
        append(buffer)
    }

    private mutating func append(_ buffer: borrowing JSONEncodingBuffer) {
        buffer.withBytes { bytes.append(contentsOf: $0) }
    }
}

extension JSONValue {
    /// The value as compact JSON text.
    public var jsonString: String {
        var buffer = JSONEncodingBuffer(capacity: 256)
        buffer.write(self)
        return buffer.withBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// The value as compact JSON, UTF-8 encoded.
    public var jsonBytes: [UInt8] {
        var buffer = JSONEncodingBuffer(capacity: 256)
        buffer.write(self)
        return buffer.withBytes { Array($0) }
    }
}
