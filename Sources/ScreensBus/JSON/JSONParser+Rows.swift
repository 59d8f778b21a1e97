/// The rows of a page: the objects of the recorded array, checked without being parsed.
///
/// Rows of a page share their keys, in the same order, so a row is first checked against the
/// shape of the last one read member by member: what comes before each value (`"key":` for
/// the first, `,"key":` for the next ones) is compared with the input in one go, and only
/// the values are read. A row that differs anywhere from that shape (another key, whitespace
/// between tokens, a member more or less) is read again from its start member by member, so
/// both ways accept and refuse exactly the same rows with the same errors: the shape is made
/// of bytes the member-by-member reader accepted, and the values are read by the same code.
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
    /// it does not have that shape.
    private mutating func skipRowLikeShape(_ selection: JSONMemberSelection?, startingElementAt elementStart: Int, entry: Int) throws(JSONParseError) -> Bool {
        let whitespaceBefore = skippedWhitespace
        let depthBefore = depth
        // The same step as the member-by-member reader's, so a row too deep fails alike.
        _ = try enterContainer(isObject: true)
        let prefixes = rowShape.prefixes.baseAddress!
        let members = rowShape.members.baseAddress!
        var prefixStart = 0
        for member in 0..<rowShape.count {
            let prefixEnd = members[member &* 2]
            let length = prefixEnd &- prefixStart
            // The prefixes are padded, so a word can always be read past this one's end.
            guard end &- index >= length,
                Self.bytesEqual(prefixes + prefixStart, bytes + index, count: length, lastWordReadable: index &+ (length & ~7) &+ 8 <= end)
            else {
                return differsFromShape(selection, startingElementAt: elementStart, entry: entry, whitespace: whitespaceBefore, depth: depthBefore)
            }
            index &+= length
            prefixStart = prefixEnd
            skipWhitespace()
            let valueStart = index &- elementStart &- (skippedWhitespace &- whitespaceBefore)
            try skipMemberValue()
            let slot = members[member &* 2 &+ 1]
            if slot >= 0, selection != nil {
                let offsets = entry &+ 1 &+ slot &* 2
                recordedMembers[offsets] = valueStart
                recordedMembers[offsets &+ 1] = index &- elementStart &- (skippedWhitespace &- whitespaceBefore)
            }
        }
        guard index < end, bytes[index] == JSONByte.closeBrace else {
            return differsFromShape(selection, startingElementAt: elementStart, entry: entry, whitespace: whitespaceBefore, depth: depthBefore)
        }
        index &+= 1
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
    private mutating func differsFromShape(_ selection: JSONMemberSelection?, startingElementAt elementStart: Int, entry: Int, whitespace: Int, depth depthBefore: Int) -> Bool {
        index = elementStart
        depth = depthBefore
        skippedWhitespace = whitespace
        if let selection {
            for offset in entry..<(entry + 1 + 2 * selection.count) { recordedMembers[offset] = -1 }
        }
        rowShape.missed &+= 1
        return false
    }

    /// The row at `index` read token by token, as ``skipValue()`` reads an object; its keys
    /// become the next ``rowShape`` when they have no escapes and the row no whitespace
    /// between its tokens (a pretty-printed page would never match it).
    private mutating func skipRowMemberByMember(_ selection: JSONMemberSelection?, startingElementAt elementStart: Int, entry: Int) throws(JSONParseError) {
        let whitespaceBefore = skippedWhitespace
        if selection != nil { recordedMembers[entry] = JSONMemberTape.Status.object.rawValue }
        var learns = !rowShape.givenUp
        rowKeys.removeAll(keepingCapacity: true)
        _ = try enterContainer(isObject: true)
        var count = 0
        if !closesAtOnce(JSONByte.closeBrace) {
            repeat {
                try reachKey()
                let keyStart = index
                let slot = try passSelectedKey(member: count, selection)
                count &+= 1
                if slot == Self.escapedKey {
                    learns = false
                    if selection != nil { recordedMembers[entry] = JSONMemberTape.Status.unread.rawValue }
                } else if learns, count > RowShape.maximumMembers {
                    // A row this wide gains little from a shape, which would cost memory in
                    // proportion to it (three words a member, on a hostile body's every member).
                    learns = false
                } else if learns {
                    rowKeys.append(keyStart)
                    rowKeys.append(index)
                    rowKeys.append(slot)
                }
                try passColon()
                skipWhitespace()
                let valueStart = index &- elementStart &- (skippedWhitespace &- whitespaceBefore)
                try skipValue()
                // Without a selection (the page gave its positions up), a key the cache
                // remembers from a row before still has its slot: nothing is recorded.
                if slot >= 0, selection != nil {
                    let offsets = entry &+ 1 &+ slot &* 2
                    recordedMembers[offsets] = valueStart
                    recordedMembers[offsets &+ 1] = index &- elementStart &- (skippedWhitespace &- whitespaceBefore)
                }
            } while try !passSeparator(closer: JSONByte.closeBrace)
        }
        leaveContainer(isObject: true, count: count)
        if learns, count > 0, skippedWhitespace == whitespaceBefore {
            rowShape.learn(keys: rowKeys, in: bytes)
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

/// What comes before each member's value in a row of a page, written compactly, for the next
/// rows to be compared with (see `JSONParser.skipRow(_:startingElementAt:entry:)`).
struct RowShape {
    /// `"key":` for the first member, then `,"key":` for each next one, back to back, and 8
    /// bytes of padding: a word can be read at any of them.
    private(set) var prefixes = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)
    /// For each member, where its prefix ends in ``prefixes``, then its slot in the parser's
    /// member selection (-1 for none).
    private(set) var members = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)
    /// How many members the shape has; 0 before one is learnt.
    private(set) var count = 0
    /// Rows that had the shape, and rows that did not: rows that keep changing shape would be
    /// read twice each, so past a few misses the shape must match four rows in five or it is
    /// no longer tried.
    var matched = 0
    var missed = 0

    var givenUp: Bool { missed >= 16 && missed &* 4 >= matched }

    /// The most members a row may have for its shape to be learnt.
    static let maximumMembers = 1024

    /// Learns the shape of a row from its keys: three entries each in `keys` (where the key
    /// starts and ends in `bytes`, around its quotes, and its slot).
    mutating func learn(keys: [Int], in bytes: UnsafePointer<UInt8>) {
        let memberCount = keys.count / 3
        var size = 8
        for member in 0..<memberCount { size += keys[member * 3 + 1] - keys[member * 3] + 2 }
        if prefixes.count < size {
            prefixes.deallocate()
            prefixes = .allocate(capacity: max(size, 2 * prefixes.count))
        }
        if members.count < 2 * memberCount {
            members.deallocate()
            members = .allocate(capacity: max(2 * memberCount, 2 * members.count))
        }
        var length = 0
        for member in 0..<memberCount {
            if member > 0 {
                prefixes[length] = JSONByte.comma
                length += 1
            }
            let start = keys[member * 3], stop = keys[member * 3 + 1]
            UnsafeMutableRawPointer(prefixes.baseAddress! + length).copyMemory(from: bytes + start, byteCount: stop - start)
            length += stop - start
            prefixes[length] = JSONByte.colon
            length += 1
            members[member * 2] = length
            members[member * 2 + 1] = keys[member * 3 + 2]
        }
        for padding in length..<(length + 8) { prefixes[padding] = 0 }
        count = memberCount
    }

    /// Frees the buffers; the parser's last use of its shape.
    func deallocate() {
        prefixes.deallocate()
        members.deallocate()
    }
}
