/// Bytes written through a pointer, for text built from many small pieces: a converted row is
/// some twenty copies (names, values, commas) and two dates, and an `Array` append costs a
/// uniqueness check, a capacity check and a call for each. Here a piece costs a capacity
/// check and a copy.
///
/// A value type over shared storage: a copy sees the same bytes, and writing through two
/// copies writes the same memory. Keep one, in one `var`, and mutate it in place (a row
/// reader does); growing gives the growing copy storage of its own, so a copy that is kept
/// never reads freed memory. (ScreensBus's `JSONEncodingBuffer` is the noncopyable sibling the
/// JSON writer uses for one value at a time; the row reader that holds this one is a copyable
/// struct, kept in an optional, so this one keeps its memory in a class.)
struct OutputBytes {
    /// Owns the allocation, so it is freed when the last copy goes.
    private final class Storage {
        let pointer: UnsafeMutablePointer<UInt8>
        init(capacity: Int) { pointer = .allocate(capacity: capacity) }
        deinit { pointer.deallocate() }
    }

    private var storage: Storage
    /// Where the bytes start.
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int
    /// How many bytes are written.
    private(set) var count = 0

    init(capacity: Int = 1024) {
        let capacity = max(capacity, 16)
        storage = Storage(capacity: capacity)
        base = storage.pointer
        self.capacity = capacity
    }

    /// The bytes written so far.
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    /// Drops the bytes after the first `length`.
    mutating func truncate(to length: Int) {
        precondition(length >= 0 && length <= count, "OutputBytes.truncate(to:) past the written bytes")
        count = length
    }

    /// Counts `written` more bytes as written: the caller wrote them at `base + count`, after
    /// ``reserve(_:)`` made room for them.
    @inline(__always)
    mutating func advance(by written: Int) {
        precondition(written >= 0 && written <= capacity &- count, "OutputBytes.advance(by:) past the reserved room")
        count &+= written
    }

    /// Makes room for `extra` more bytes: after it, `base + count` has that many writable.
    @inline(__always)
    mutating func reserve(_ extra: Int) {
        if extra > capacity &- count { grow(toHold: count + extra) }
    }

    private mutating func grow(toHold needed: Int) {
        precondition(needed >= 0, "OutputBytes overflow")
        var newCapacity = capacity
        while newCapacity < needed { newCapacity = newCapacity > Int.max / 2 ? needed : newCapacity * 2 }
        let grown = Storage(capacity: newCapacity)
        grown.pointer.update(from: base, count: count)
        storage = grown
        base = grown.pointer
        capacity = newCapacity
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count &+= 1
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        append(source, count: bytes.count)
    }

    /// Appends `length` bytes from `source`. Short pieces (most names and values) are copied
    /// as two words or a few bytes rather than through a call to `memcpy`.
    @inline(__always)
    mutating func append(_ source: UnsafePointer<UInt8>, count length: Int) {
        reserve(length)
        let target = base + count
        if length >= 8, length <= 16 {
            let raw = UnsafeRawPointer(source)
            let head = raw.loadUnaligned(as: UInt64.self)
            let tail = raw.loadUnaligned(fromByteOffset: length &- 8, as: UInt64.self)
            UnsafeMutableRawPointer(target).storeBytes(of: head, as: UInt64.self)
            UnsafeMutableRawPointer(target).storeBytes(of: tail, toByteOffset: length &- 8, as: UInt64.self)
        } else if length < 8 {
            var offset = 0
            while offset < length {
                target[offset] = source[offset]
                offset &+= 1
            }
        } else {
            UnsafeMutableRawPointer(target).copyMemory(from: source, byteCount: length)
        }
        count &+= length
    }

    /// Appends `bytes` (an array's, a `String`'s UTF-8, any contiguous bytes).
    mutating func append<Bytes: Sequence<UInt8>>(contentsOf bytes: Bytes) {
        let copied: Void? = bytes.withContiguousStorageIfAvailable { append($0) }
        if copied == nil { for byte in bytes { append(byte) } }
    }
}
