/// The rows of a page: the objects of the recorded array, checked without being parsed.
///
/// Rows of a page share their keys, in the same order, and a page formatted for people lays
/// every row out alike, so a row is first checked against the shape of the last one read member
/// by member: what comes before each value as received (`"key":` for the first, `,"key":` for
/// the next ones, with the row's whitespace between those tokens: `,\n      "key": ` in a
/// pretty-printed page) and what ends the row (`}`, `\n    }`) are compared with the input in
/// one go, and only the values are read. A row that differs anywhere from that shape (another
/// key, other whitespace, a member more or less) is read again from its start member by member,
/// so both ways accept and refuse exactly the same rows with the same errors: the shape is made
/// of bytes the member-by-member reader accepted, and the values are read by the same code.
///
/// Rows of a page with whitespace between their tokens are written compactly as they are
/// checked (see ``JSONParser/emitted``): a row of the shape as its compact prefixes and its
/// values, any other as its compact copy (``JSONCompaction``), so a pretty-printed page costs
/// one comparison more a member, not a second pass over its whitespace.
extension JSONParser {
    /// Checks the row at `index` (its `{`, which is `elementStart`) as ``skipValue()`` checks
    /// it and, with a `selection`, writes where its members are to ``recordedMembers`` from
    /// `entry` on (see ``JSONMemberTape``): offsets into the row's compact text, which leaves
    /// out the whitespace skipped since `elementStart`.
    mutating func skipRow(_ selection: JSONMemberSelection?, startingElementAt elementStart: Int, entry: Int) throws(JSONParseError) {
        if rowShape.count > 0, !rowShape.givenUp, try skipRowLikeShape(selection, startingElementAt: elementStart, entry: entry) {
            return
        }
        try skipRowMemberByMember(selection, startingElementAt: elementStart, entry: entry)
    }

    /// The row at `index` checked against ``rowShape``; false, with everything as it was, when
    /// it does not have that shape. While ``emitted`` holds the page's compact text, the row is
    /// written there.
    private mutating func skipRowLikeShape(_ selection: JSONMemberSelection?, startingElementAt elementStart: Int, entry: Int) throws(JSONParseError) -> Bool {
        // One loop for compact pages and one that writes the rows, each without the other's work.
        if emitted != nil {
            return try skipRowLikeShape(selection, startingElementAt: elementStart, entry: entry, emits: true)
        }
        return try skipRowLikeShape(selection, startingElementAt: elementStart, entry: entry, emits: false)
    }

    @inline(__always)
    private mutating func skipRowLikeShape(
        _ selection: JSONMemberSelection?, startingElementAt elementStart: Int, entry: Int, emits: Bool
    ) throws(JSONParseError) -> Bool {
        let whitespaceBefore = skippedWhitespace
        let depthBefore = depth
        let emittedBefore = emittedCount
        // The same step as the member-by-member reader's, so a row too deep fails alike.
        _ = try enterContainer(isObject: true)
        let received = rowShape.received.baseAddress!
        let compact = rowShape.compact.baseAddress!
        let members = rowShape.members.baseAddress!
        if emits { emit(JSONByte.openBrace) }
        var receivedStart = 0
        var compactStart = 0
        for member in 0..<rowShape.count {
            let receivedEnd = members[member &* 4]
            let length = receivedEnd &- receivedStart
            // The shape is padded, so a word can always be read past this prefix's end.
            guard end &- index >= length,
                Self.bytesEqual(received + receivedStart, bytes + index, count: length, lastWordReadable: index &+ (length & ~7) &+ 8 <= end)
            else {
                return differsFromShape(selection, startingElementAt: elementStart, entry: entry, whitespace: whitespaceBefore, depth: depthBefore, emitted: emittedBefore)
            }
            index &+= length
            skippedWhitespace &+= members[member &* 4 &+ 3]
            receivedStart = receivedEnd
            skipWhitespace()
            let valueIndex = index
            let whitespaceAtValue = skippedWhitespace
            let valueStart = index &- elementStart &- (skippedWhitespace &- whitespaceBefore)
            try skipMemberValue()
            let slot = members[member &* 4 &+ 2]
            if slot >= 0, selection != nil {
                let offsets = entry &+ 1 &+ slot &* 2
                recordedMembers[offsets] = valueStart
                recordedMembers[offsets &+ 1] = index &- elementStart &- (skippedWhitespace &- whitespaceBefore)
            }
            if emits {
                let compactEnd = members[member &* 4 &+ 1]
                emitWords(compact + compactStart, count: compactEnd &- compactStart)
                compactStart = compactEnd
                emitInput(valueIndex, index, compacting: skippedWhitespace != whitespaceAtValue)
            }
        }
        let endLength = rowShape.endLength
        guard end &- index >= endLength,
            Self.bytesEqual(received + receivedStart, bytes + index, count: endLength, lastWordReadable: index &+ (endLength & ~7) &+ 8 <= end)
        else {
            return differsFromShape(selection, startingElementAt: elementStart, entry: entry, whitespace: whitespaceBefore, depth: depthBefore, emitted: emittedBefore)
        }
        index &+= endLength
        skippedWhitespace &+= rowShape.endWhitespace
        if emits { emit(JSONByte.closeBrace) }
        leaveContainer(isObject: true, count: rowShape.count)
        if selection != nil { recordedMembers[entry] = JSONMemberTape.Status.object.rawValue }
        rowShape.matched &+= 1
        return true
    }

    /// Passes the value at `index` as ``skipValue()`` does. The commonest values of a row are
    /// read here, without a call: a string with no escape and only ASCII, an integer that
    /// does not start with `-`, and `null`. Anything else, or anything more (a fraction, an
    /// exponent, a digit after a leading 0), is read by ``skipValue()`` from the same place,
    /// so both agree.
    @inline(__always)
    private mutating func skipMemberValue() throws(JSONParseError) {
        if index < end {
            let first = bytes[index]
            if first == JSONByte.quote {
                let stop = skipPlainASCII(from: index &+ 1)
                if stop < end, bytes[stop] == JSONByte.quote {
                    index = stop &+ 1
                    return
                }
            } else if first &- JSONByte.zero < 10 {
                // A 0 stands alone: what follows it must not be a digit, as after any integer.
                let cursor = first == JSONByte.zero ? index &+ 1 : skipDigits(from: index &+ 1)
                if cursor == end
                    || (bytes[cursor] &- JSONByte.zero >= 10 && bytes[cursor] != JSONByte.dot && bytes[cursor] | 0x20 != UInt8(ascii: "e"))
                {
                    index = cursor
                    return
                }
            } else if first == UInt8(ascii: "n"), end &- index >= 4,
                UnsafeRawPointer(bytes + index).loadUnaligned(as: UInt32.self) == Self.nullWord
            {
                index &+= 4
                return
            }
        }
        try skipValue()
    }

    /// `null` as a little-endian word, as ``skipMemberValue()`` loads it.
    private static let nullWord = UInt32(littleEndian: 0x6C6C_756E)

    /// Puts everything back as it was before the row at `elementStart` was compared with the
    /// shape, for it to be read member by member; false.
    private mutating func differsFromShape(
        _ selection: JSONMemberSelection?, startingElementAt elementStart: Int, entry: Int, whitespace: Int, depth depthBefore: Int, emitted: Int
    ) -> Bool {
        index = elementStart
        depth = depthBefore
        skippedWhitespace = whitespace
        emittedCount = emitted
        if let selection {
            for offset in entry..<(entry + 1 + 2 * selection.count) { recordedMembers[offset] = -1 }
        }
        rowShape.missed &+= 1
        return false
    }

    /// The row at `index` read token by token, as ``skipValue()`` reads an object; its keys
    /// and the bytes around them, whitespace included, become the next ``rowShape`` when they
    /// have no escapes.
    private mutating func skipRowMemberByMember(_ selection: JSONMemberSelection?, startingElementAt elementStart: Int, entry: Int) throws(JSONParseError) {
        let whitespaceBefore = skippedWhitespace
        if selection != nil { recordedMembers[entry] = JSONMemberTape.Status.object.rawValue }
        var learns = !rowShape.givenUp
        rowKeys.removeAll(keepingCapacity: true)
        _ = try enterContainer(isObject: true)
        var count = 0
        // Where the bytes before the next value start (after the `{`, then after each value),
        // and the whitespace skipped until then.
        var prefixStart = index
        var prefixWhitespace = skippedWhitespace
        if !closesAtOnce(JSONByte.closeBrace) {
            repeat {
                try reachKey()
                let keyStart = index
                let slot = try passSelectedKey(member: count, selection)
                let keyEnd = index
                count &+= 1
                if slot == Self.escapedKey {
                    learns = false
                    if selection != nil { recordedMembers[entry] = JSONMemberTape.Status.unread.rawValue }
                } else if learns, count > RowShape.maximumMembers {
                    // A row this wide gains little from a shape, which would cost memory in
                    // proportion to it (six words a member, on a hostile body's every member).
                    learns = false
                }
                try passColon()
                skipWhitespace()
                if learns {
                    rowKeys.append(prefixStart)
                    rowKeys.append(keyStart)
                    rowKeys.append(keyEnd)
                    rowKeys.append(index)
                    rowKeys.append(slot)
                    rowKeys.append(skippedWhitespace &- prefixWhitespace)
                }
                let valueStart = index &- elementStart &- (skippedWhitespace &- whitespaceBefore)
                try skipValue()
                // Without a selection (the page gave its positions up), a key the cache
                // remembers from a row before still has its slot: nothing is recorded.
                if slot >= 0, selection != nil {
                    let offsets = entry &+ 1 &+ slot &* 2
                    recordedMembers[offsets] = valueStart
                    recordedMembers[offsets &+ 1] = index &- elementStart &- (skippedWhitespace &- whitespaceBefore)
                }
                prefixStart = index
                prefixWhitespace = skippedWhitespace
            } while try !passSeparator(closer: JSONByte.closeBrace)
        }
        leaveContainer(isObject: true, count: count)
        if learns, count > 0 {
            rowShape.learn(keys: rowKeys, end: prefixStart..<index, endWhitespace: skippedWhitespace &- prefixWhitespace, in: bytes)
        }
    }

    /// What ``passSelectedKey(member:_:)`` returns for a key written with an escape.
    private static let escapedKey = -2

    /// Passes the key at `index`, the `member`-th of a row, checked as ``skipString()``
    /// checks it, and returns its slot in `selection` (-1: not selected, or no selection;
    /// ``escapedKey``). A key that repeats the last row's at its place is passed after one
    /// comparison.
    private mutating func passSelectedKey(member: Int, _ selection: JSONMemberSelection?) throws(JSONParseError) -> Int {
        let start = index &+ 1
        if member < selectedKeys.count {
            let known = selectedKeys[member]
            let stop = start &+ known.length
            if stop < end, bytes[stop] == JSONByte.quote, bytesEqual(known.offset, start, count: known.length) {
                index = stop &+ 1
                return known.slot
            }
        }
        let stop = try scanString(from: start)
        guard bytes[stop] == JSONByte.quote else {
            _ = try parseEscapedString(start: start, firstEscape: stop)
            return Self.escapedKey
        }
        let slot = selection?.slot(of: UnsafeBufferPointer(start: bytes + start, count: stop &- start)) ?? -1
        let key = SelectedKey(offset: start, length: stop &- start, slot: slot)
        if member < selectedKeys.count { selectedKeys[member] = key } else { selectedKeys.append(key) }
        index = stop &+ 1
        return slot
    }
}

/// What comes before each member's value in a row of a page, and what ends the row, as
/// received and written compactly, for the next rows to be compared with and written by (see
/// `JSONParser.skipRow(_:startingElementAt:entry:)`).
struct RowShape {
    /// For each member, the bytes before its value as received (`"key":` for the first, then
    /// `,"key":`, with whatever whitespace the row had between those tokens), back to back;
    /// then the bytes that end the row (`}`, after any whitespace); and 8 bytes of padding: a
    /// word can be read at any of them.
    private(set) var received = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)
    /// The same written compactly: `"key":`, `,"key":`... back to back, and 8 bytes of padding.
    private(set) var compact = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)
    /// Four entries a member: where its prefix ends in ``received`` and in ``compact``, its
    /// slot in the parser's member selection (-1 for none), and how many bytes of whitespace
    /// its received prefix holds.
    private(set) var members = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)
    /// How many members the shape has; 0 before one is learnt.
    private(set) var count = 0
    /// How long the bytes that end the row are, and how much whitespace they hold.
    private(set) var endLength = 0
    private(set) var endWhitespace = 0
    /// Rows that had the shape, and rows that did not: rows that keep changing shape would be
    /// read twice each, so past a few misses the shape must match four rows in five or it is
    /// no longer tried.
    var matched = 0
    var missed = 0

    var givenUp: Bool { missed >= 16 && missed &* 4 >= matched }

    /// The most members a row may have for its shape to be learnt.
    static let maximumMembers = 1024

    /// Learns the shape of a row: six entries a member in `keys` (where the bytes before its
    /// value start, where its key starts and ends around its quotes, where its value starts,
    /// its slot, and the whitespace before its value), and the bytes that end it, at `end` of
    /// `bytes`, holding `endWhitespace` bytes of whitespace.
    mutating func learn(keys: [Int], end: Range<Int>, endWhitespace: Int, in bytes: UnsafePointer<UInt8>) {
        let memberCount = keys.count / 6
        var receivedSize = end.count + 8
        var compactSize = 8
        for member in 0..<memberCount {
            receivedSize += keys[member * 6 + 3] - keys[member * 6]
            compactSize += keys[member * 6 + 2] - keys[member * 6 + 1] + 2
        }
        Self.reserve(&received, receivedSize)
        Self.reserve(&compact, compactSize)
        if members.count < 4 * memberCount {
            members.deallocate()
            members = .allocate(capacity: max(4 * memberCount, 2 * members.count))
        }
        var receivedLength = 0
        var compactLength = 0
        for member in 0..<memberCount {
            let prefix = keys[member * 6]..<keys[member * 6 + 3]
            UnsafeMutableRawPointer(received.baseAddress! + receivedLength).copyMemory(from: bytes + prefix.lowerBound, byteCount: prefix.count)
            receivedLength += prefix.count
            if member > 0 {
                compact[compactLength] = JSONByte.comma
                compactLength += 1
            }
            let key = keys[member * 6 + 1]..<keys[member * 6 + 2]
            UnsafeMutableRawPointer(compact.baseAddress! + compactLength).copyMemory(from: bytes + key.lowerBound, byteCount: key.count)
            compactLength += key.count
            compact[compactLength] = JSONByte.colon
            compactLength += 1
            members[member * 4] = receivedLength
            members[member * 4 + 1] = compactLength
            members[member * 4 + 2] = keys[member * 6 + 4]
            members[member * 4 + 3] = keys[member * 6 + 5]
        }
        UnsafeMutableRawPointer(received.baseAddress! + receivedLength).copyMemory(from: bytes + end.lowerBound, byteCount: end.count)
        receivedLength += end.count
        for padding in receivedLength..<(receivedLength + 8) { received[padding] = 0 }
        for padding in compactLength..<(compactLength + 8) { compact[padding] = 0 }
        count = memberCount
        endLength = end.count
        self.endWhitespace = endWhitespace
    }

    private static func reserve(_ buffer: inout UnsafeMutableBufferPointer<UInt8>, _ size: Int) {
        guard buffer.count < size else { return }
        buffer.deallocate()
        buffer = .allocate(capacity: max(size, 2 * buffer.count))
    }

    /// Frees the buffers; the parser's last use of its shape.
    func deallocate() {
        received.deallocate()
        compact.deallocate()
        members.deallocate()
    }
}
