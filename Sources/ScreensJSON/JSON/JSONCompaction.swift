/// JSON text without the whitespace between its tokens: how the rows of a page formatted for
/// people (pretty-printed, or `", "` and `": "`) become the compact texts that pass through.
///
/// The parser writes the rows of such a page compactly as it checks them, most of them from
/// their shape (`JSONParser+Rows.swift`); this copies what it read any other way (a row of
/// another shape, a value with whitespace inside), a file source's row, or any text. A copy
/// is made a word at a time: runs up to the next quote or whitespace are found eight bytes at
/// a time, strings are copied whole, escapes and spaces inside them untouched, indentation is
/// passed eight spaces at a time.
///
/// Whitespace is left out only beside a byte that is a token by itself (`{ } [ ] , :`) or a
/// string's quote, so the tokens of the copy are the input's tokens: text with whitespace
/// between two bytes of numbers or literals (`1 2`, `- 1`, `tr ue`), which JSON never has, is
/// not copied at all (nil), rather than made valid.
package enum JSONCompaction {
    /// `bytes` without the whitespace outside its strings, or nil when whitespace stands
    /// between two bytes of which neither starts or ends a token by itself (invalid JSON).
    package static func compacted(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard let source = bytes.baseAddress else { return [] }
        var fits = true
        let result = [UInt8](unsafeUninitializedCapacity: bytes.count + 8) { buffer, initialized in
            if let written = compact(source, count: bytes.count, into: buffer.baseAddress!) {
                initialized = written
            } else {
                initialized = 0
                fits = false
            }
        }
        return fits ? result : nil
    }

    /// Appends `bytes` without the whitespace outside its strings to `output`; false, with
    /// `output` as it was, when ``compacted(_:)`` would be nil.
    package static func append(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) -> Bool {
        guard let source = bytes.baseAddress else { return true }
        let start = output.count
        // Room for the whole input and a word (the copy is never longer, and is written a
        // word at a time), given back after.
        output.append(contentsOf: repeatElement(0, count: bytes.count &+ 8))
        let written = output.withUnsafeMutableBufferPointer { buffer in
            compact(source, count: bytes.count, into: buffer.baseAddress! + start)
        }
        output.removeLast(bytes.count &+ 8 &- (written ?? 0))
        return written != nil
    }

    /// Writes the `count` bytes at `source` to `destination` (room for `count` and a word: it
    /// writes a word at a time) without the
    /// whitespace outside strings; how many it wrote, or nil (see ``compacted(_:)``).
    static func compact(_ source: UnsafePointer<UInt8>, count: Int, into destination: UnsafeMutablePointer<UInt8>) -> Int? {
        var read = 0
        var written = 0
        @inline(__always) func copy(_ start: Int, _ stop: Int) {
            let length = stop &- start
            // Word by word: the pieces are short, and a call to memmove each costs more than they do.
            if stop &+ 8 <= count {
                var offset = 0
                repeat {
                    let word = UnsafeRawPointer(source + (start &+ offset)).loadUnaligned(as: UInt64.self)
                    UnsafeMutableRawPointer(destination + (written &+ offset)).storeBytes(of: word, as: UInt64.self)
                    offset &+= 8
                } while offset < length
                written &+= length
            } else if length > 0 {
                (destination + written).update(from: source + start, count: length)
                written &+= length
            }
        }
        while read < count {
            let stop = quoteOrWhitespace(source, from: read, to: count)
            copy(read, stop)
            guard stop < count else { break }
            let byte = source[stop]
            if byte == JSONByte.quote {
                // A string, whole: up to its closing quote, past any escaped byte.
                var cursor = stop &+ 1
                while true {
                    cursor = quoteOrBackslash(source, from: cursor, to: count)
                    if cursor >= count || source[cursor] == JSONByte.quote { break }
                    cursor &+= 2
                }
                // An unterminated string is copied as it is: the check refuses it.
                let after = min(cursor &+ 1, count)
                copy(stop, after)
                read = after
            } else if isWhitespace(byte) {
                let cursor = whitespaceEnd(source, from: stop &+ 1, to: count)
                if written > 0, cursor < count, !isDelimiter(destination[written &- 1]), !isDelimiter(source[cursor]) { return nil }
                read = cursor
            } else {
                // A control character outside a string: kept, for the check to refuse.
                destination[written] = byte
                written &+= 1
                read = stop &+ 1
            }
        }
        return written
    }

    private static let spaces: UInt64 = 0x2020_2020_2020_2020

    /// The index of the first byte at or after `start` that is not whitespace, or `end`;
    /// spaces (indentation) a word at a time.
    @inline(__always)
    static func whitespaceEnd(_ source: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Int {
        var cursor = start
        while true {
            if cursor &+ 8 <= end {
                let notSpaces = UnsafeRawPointer(source + cursor).loadUnaligned(as: UInt64.self) ^ spaces
                if notSpaces == 0 {
                    cursor &+= 8
                    continue
                }
                cursor &+= notSpaces.trailingZeroBitCount &>> 3
            }
            guard cursor < end, isWhitespace(source[cursor]) else { return cursor }
            cursor &+= 1
        }
    }

    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == JSONByte.space || byte == JSONByte.newline || byte == JSONByte.carriageReturn || byte == JSONByte.tab
    }

    /// Whether `byte` is a token by itself or a string's quote: whitespace beside it can go.
    @inline(__always)
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case JSONByte.openBrace, JSONByte.closeBrace, JSONByte.openBracket, JSONByte.closeBracket, JSONByte.comma, JSONByte.colon,
            JSONByte.quote:
            return true
        default: return false
        }
    }

    /// The index of the first quote or byte below `!` (whitespace, or a control character)
    /// in `source[start..<end]`, or `end`.
    ///
    /// Eight bytes at a time: each test sets the high bit of a byte that may be one, never
    /// missing one; borrows only flag bytes above a real one, so the lowest flag is exact.
    @inline(__always)
    static func quoteOrWhitespace(_ source: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var cursor = start
        while cursor &+ 8 <= end {
            let word = UnsafeRawPointer(source + cursor).loadUnaligned(as: UInt64.self)
            let quotes = word ^ (ones &* 0x22)
            let hits = (((quotes &- ones) & ~quotes) | ((word &- ones &* 0x21) & ~word)) & highs
            if hits != 0 { return cursor &+ hits.trailingZeroBitCount &>> 3 }
            cursor &+= 8
        }
        while cursor < end, source[cursor] != JSONByte.quote, source[cursor] > JSONByte.space { cursor &+= 1 }
        return cursor
    }

    /// The index of the first quote or backslash in `source[start..<end]`, or `end`; eight
    /// bytes at a time, as ``quoteOrWhitespace(_:from:to:)``.
    @inline(__always)
    static func quoteOrBackslash(_ source: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var cursor = start
        while cursor &+ 8 <= end {
            let word = UnsafeRawPointer(source + cursor).loadUnaligned(as: UInt64.self)
            let quotes = word ^ (ones &* 0x22)
            let backslashes = word ^ (ones &* 0x5C)
            let hits = (((quotes &- ones) & ~quotes) | ((backslashes &- ones) & ~backslashes)) & highs
            if hits != 0 { return cursor &+ hits.trailingZeroBitCount &>> 3 }
            cursor &+= 8
        }
        while cursor < end, source[cursor] != JSONByte.quote, source[cursor] != JSONByte.backslash { cursor &+= 1 }
        return cursor
    }
}
