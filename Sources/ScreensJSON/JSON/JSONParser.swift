/// A strict RFC 8259 parser over a borrowed byte buffer.
///
/// It works on a raw pointer and an index range so that errors carry offsets into the whole
/// input, which lets JSON lines parse each line in place without copying. Containers recurse
/// (bounded by ``maxDepth``), scalars do not.
struct JSONParser: ~Copyable {
    /// Deepest nesting of arrays and objects accepted; one more is an error, not a stack overflow.
    static let maxDepth = 512

    let bytes: UnsafePointer<UInt8>
    /// One past the last byte this parser may read.
    private(set) var end: Int
    /// The next byte to read.
    var index: Int
    var depth = 0
    /// How many bytes of whitespace were skipped so far: an element whose text is kept and
    /// held some between its tokens is compacted (see ``JSONElementTexts``), and the member
    /// positions recorded in it are where they are once it is.
    var skippedWhitespace = 0
    /// The array whose elements' texts are recorded (a page's rows): the steps from the
    /// document's root to it. Only read while ``nextValueOnPath`` is not negative.
    var textPath: [JSONPathStep] = []
    /// How many steps of ``textPath`` the next value to parse has matched; -1 when it is
    /// off the path (always, unless texts are kept). Taken by ``parseValue()``.
    var nextValueOnPath = -1
    /// The byte range of each element of the array at ``textPath``; nil until it is found.
    var recordedRanges: [Range<Int>]?
    /// Whether an element of the recorded array had whitespace between its tokens.
    var recordedWhitespace = false
    /// The compact text of the recorded array's elements, when they are only checked and one
    /// of them had whitespace between its tokens (a page formatted for people): the elements
    /// are written there as they are checked, and ``recordedRanges`` are ranges of it.
    var recordedText: [UInt8]?
    /// Where the elements' compact text is written while they are checked (see
    /// ``recordedText``); nil while they need none. Never fuller than the input read since
    /// the array started and the separator after it (each element's newline stands for its
    /// `,` or `]`), so it holds that input's length and a word more.
    var emitted: UnsafeMutablePointer<UInt8>?
    var emittedCount = 0
    /// The array ``emitted`` points into, which becomes ``recordedText`` when the recorded
    /// array ends, cut to what was written rather than copied (a page's whole compact text).
    /// Neither read nor changed until then, so its storage stays where ``emitted`` points.
    private var emittedStorage: [UInt8] = []
    /// Whether the recorded array's elements are only checked (``skipValue()``), not parsed:
    /// the tree then holds `null` in their place.
    var skipsRecordedElements = false
    /// The most elements the recorded array may hold: one more stops the parse at once with
    /// ``JSONParseError/elementLimit`` set, before it costs memory for the rest.
    var maximumRecordedElements = Int.max
    /// The members to find in each of the recorded array's elements while they are only
    /// checked; where they are goes to ``recordedMembers`` (see ``JSONMemberTape``).
    var memberSelection: JSONMemberSelection?
    var recordedMembers: [Int] = []
    /// The keys of the last element read for ``memberSelection``, by member position: where
    /// each one is in the input, and its slot. Rows repeat their keys, so the next row's key
    /// there is compared with it in place.
    var selectedKeys: [SelectedKey] = []

    struct SelectedKey {
        var offset: Int
        var length: Int
        var slot: Int
    }
    /// The shape of the last row of the recorded array that was checked member by member:
    /// what comes before each member's value (`"key":` after the `{`, then `,"key":`, as
    /// received) and what ends it, to
    /// check the next row against in one comparison per member. See
    /// `skipRow(_:startingElementAt:entry:)`.
    var rowShape = RowShape()
    /// Where the row being checked member by member has its keys (start, one past the end,
    /// both around their quotes) and their slots, three entries per member: the next shape.
    var rowKeys: [Int] = []

    /// The member count of the last object and element count of the last array finished at
    /// each depth: rows of a page share one shape, so the next one reserves exactly that.
    private var capacityHints: [Int] = []
    /// The last key read at each (depth, member position), to compare the next one with it
    /// in place: rows repeat their keys. See `parseKey` and `skipKey`.
    var keyCache: [CachedKey] = []
    /// Whether keys are cached at all (see ``keyCache``): not for a lone document.
    var cachesKeys = true
    /// Where strings with escapes are decoded; grown as needed and reused for every string.
    var scratch = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)

    /// Where a key's bytes are in the input (a length of -1: no key yet), so a later key can
    /// be compared in place, and its `String` once the parsing reader made one (the skipping
    /// reader never does).
    struct CachedKey {
        var offset: Int
        var length: Int
        var key: String?
    }

    init(bytes: UnsafePointer<UInt8>, start: Int, end: Int) {
        self.bytes = bytes
        self.index = start
        self.end = end
    }

    deinit {
        scratch.deallocate()
        rowShape.deallocate()
    }

    /// Moves to another range of the same input, keeping the caches (JSON lines of one shape).
    mutating func restart(start: Int, end: Int) {
        index = start
        self.end = end
        depth = 0
    }

    /// Parses exactly one value surrounded by optional whitespace, up to `end`.
    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        let value = try parseValue()
        skipWhitespace()
        if index != end { throw error(at: index, "unexpected characters after the value") }
        return value
    }

    func error(at offset: Int, _ message: String) -> JSONParseError {
        JSONParseError(offset: offset, message: message)
    }

    @inline(__always)
    mutating func skipWhitespace() {
        // Every byte a token starts with is above the space: compact input returns at once.
        guard index < end, bytes[index] <= JSONByte.space else { return }
        skipWhitespaceRun()
    }

    /// Passes the whitespace at `index`; spaces (indentation) a word at a time.
    private mutating func skipWhitespaceRun() {
        let start = index
        index = JSONCompaction.whitespaceEnd(bytes, from: index, to: end)
        skippedWhitespace &+= index &- start
    }

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        guard index < end else { throw error(at: index, "unexpected end of input") }
        let onPath = nextValueOnPath
        nextValueOnPath = -1
        // A later value on the path (a repeated key) replaces what an earlier one recorded,
        // as it replaces it in the tree: `{"items":[1],"items":{}}` has no rows array.
        if onPath >= 0 { recordedRanges = nil }
        switch bytes[index] {
        case JSONByte.quote: return .string(try parseString())
        case JSONByte.openBrace: return try parseObject(onPath: onPath)
        case JSONByte.openBracket: return .array(try parseElements(onPath: onPath))
        case JSONByte.minus, JSONByte.zero ... JSONByte.nine: return try parseNumber()
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        default:
            throw error(at: index, "expected a value")
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let text = literal.utf8Start
        for offset in 0..<literal.utf8CodeUnitCount {
            guard index < end else { throw error(at: index, "unexpected end of input") }
            guard bytes[index] == text[offset] else { throw error(at: index, "invalid literal, expected \(literal)") }
            index += 1
        }
    }

    /// Enters an array or object and returns the capacity to reserve for it.
    mutating func enterContainer(isObject: Bool) throws(JSONParseError) -> Int {
        depth += 1
        if depth > Self.maxDepth {
            throw error(at: index, "nesting deeper than \(Self.maxDepth) levels")
        }
        index += 1
        let slot = depth &* 2 &+ (isObject ? 1 : 0)
        if slot >= capacityHints.count {
            capacityHints.append(contentsOf: repeatElement(0, count: slot + 16 - capacityHints.count))
        }
        return capacityHints[slot]
    }

    mutating func leaveContainer(isObject: Bool, count: Int) {
        capacityHints[depth &* 2 &+ (isObject ? 1 : 0)] = count
        depth -= 1
    }

    // The token steps below are shared by the parsing and the skipping readers, so both
    // accept and refuse the same input with the same errors.

    /// Whether the container just entered is empty: its `closer` follows, and is consumed.
    @inline(__always)
    mutating func closesAtOnce(_ closer: UInt8) -> Bool {
        skipWhitespace()
        guard index < end, bytes[index] == closer else { return false }
        index += 1
        return true
    }

    /// Passes what follows an element or member: a comma (false) or `closer`, which ends
    /// the container (true).
    @inline(__always)
    mutating func passSeparator(closer: UInt8) throws(JSONParseError) -> Bool {
        skipWhitespace()
        guard index < end else {
            throw error(at: index, "unexpected end of input, expected ',' or '\(Character(Unicode.Scalar(closer)))'")
        }
        switch bytes[index] {
        case JSONByte.comma:
            index += 1
            return false
        case closer:
            index += 1
            return true
        default:
            throw error(at: index, "expected ',' or '\(Character(Unicode.Scalar(closer)))'")
        }
    }

    /// Moves to the opening quote of an object's next key.
    @inline(__always)
    mutating func reachKey() throws(JSONParseError) {
        skipWhitespace()
        guard index < end else { throw error(at: index, "unexpected end of input, expected a string key") }
        guard bytes[index] == JSONByte.quote else { throw error(at: index, "expected a string key") }
    }

    /// Passes the colon after a key.
    @inline(__always)
    mutating func passColon() throws(JSONParseError) {
        skipWhitespace()
        guard index < end else { throw error(at: index, "unexpected end of input, expected ':'") }
        guard bytes[index] == JSONByte.colon else { throw error(at: index, "expected ':'") }
        index += 1
    }

    /// Parses a document, recording the byte range of each element of the array at `path`
    /// in ``recordedRanges`` (nil when there is no array there).
    mutating func parseDocument(keepingElementTextsAt path: [JSONPathStep]) throws(JSONParseError) -> JSONValue {
        textPath = path
        nextValueOnPath = 0
        return try parseDocument()
    }

    /// The elements of the array that starts at `index`. `onPath` is how many steps of
    /// ``textPath`` the array matched (-1: off the path): all of them makes it the array
    /// whose element ranges are recorded.
    private mutating func parseElements(onPath: Int) throws(JSONParseError) -> [JSONValue] {
        let hint = try enterContainer(isObject: false)
        var elements: [JSONValue] = []
        // A key repeated on the path is read again: the last one wins, as in the tree.
        let records = onPath >= 0 && onPath == textPath.count
        var ranges: [Range<Int>] = []
        var whitespace = false
        var wantedIndex = -1
        if onPath >= 0, !records, case .index(let wanted) = textPath[onPath] { wantedIndex = wanted }
        if records { stopEmitting() }
        if closesAtOnce(JSONByte.closeBracket) {
            leaveContainer(isObject: false, count: 0)
            if records { recordedRanges = []; recordedWhitespace = false; recordedMembers = [] }
            return elements
        }
        elements.reserveCapacity(records ? min(hint, maximumRecordedElements &+ 1) : hint)
        var selection = records && skipsRecordedElements ? memberSelection : nil
        let stride = selection.map { 1 + 2 * $0.count } ?? 0
        if records { ranges.reserveCapacity(hint) }
        if selection != nil {
            recordedMembers.removeAll(keepingCapacity: true)
            recordedMembers.append(contentsOf: repeatElement(-1, count: max(hint, 16) * stride))
        }
        // The positions take `stride` words per row, whatever its size: a page of tiny rows
        // (`[{},{},...]`) would make them many times the body. Past a quarter of the body's
        // size in words (a page of ordinary rows needs a twentieth), they are given up, and
        // the stages find them in batches of rows instead (JSONElementTexts.memberTape(finding:elements:)).
        let memberEntryLimit = max(16 * stride, end / 4)
        while true {
            skipWhitespace()
            let start = index
            let whitespaceBefore = skippedWhitespace
            if records, elements.count == maximumRecordedElements {
                throw JSONParseError(
                    offset: index, message: "more than \(maximumRecordedElements) elements in the array of rows", elementLimit: maximumRecordedElements)
            }
            if !records, wantedIndex == elements.count {
                nextValueOnPath = onPath + 1
            }
            let emittedStart = emittedCount
            if records && skipsRecordedElements {
                let entry = elements.count * stride
                if selection != nil, recordedMembers.count < entry + stride {
                    // As many more as the rest of the input holds rows the size of those so far
                    // (rows of a page are alike), rather than doubling and copying.
                    let rowSize = max(1, (index - (ranges.first?.lowerBound ?? start)) / max(1, elements.count))
                    let rows = min(elements.count + (end - index) / rowSize + 1, memberEntryLimit / stride)
                    recordedMembers.append(contentsOf: repeatElement(-1, count: max(0, rows * stride - recordedMembers.count)))
                    if recordedMembers.count < entry + stride {
                        selection = nil
                        recordedMembers = []
                    }
                }
                if index < end, bytes[index] == JSONByte.openBrace {
                    try skipRow(selection, startingElementAt: start, entry: entry)
                } else {
                    if selection != nil { recordedMembers[entry] = JSONMemberTape.Status.unread.rawValue }
                    try skipValue()
                }
                elements.append(.null)
            } else {
                elements.append(try parseValue())
            }
            if records {
                let hasWhitespace = skippedWhitespace != whitespaceBefore
                if !skipsRecordedElements {
                    ranges.append(start..<index)
                    whitespace = whitespace || hasWhitespace
                } else if emitted != nil {
                    // A row of the shape wrote itself; any other is copied compactly.
                    if emittedCount == emittedStart { emitInput(start, index, compacting: hasWhitespace) }
                    ranges.append(emittedStart..<emittedCount)
                    emit(JSONByte.newline)
                } else if hasWhitespace {
                    startEmitting(&ranges, from: ranges.first?.lowerBound ?? start)
                    let copyStart = emittedCount
                    emitInput(start, index, compacting: true)
                    ranges.append(copyStart..<emittedCount)
                    emit(JSONByte.newline)
                } else {
                    ranges.append(start..<index)
                }
            }
            if try passSeparator(closer: JSONByte.closeBracket) {
                leaveContainer(isObject: false, count: elements.count)
                if records {
                    recordedRanges = ranges
                    recordedWhitespace = whitespace
                    if emitted != nil {
                        // Moved out first: the array, held once, is cut in place.
                        var text = emittedStorage
                        let count = emittedCount
                        stopEmitting()
                        text.removeLast(text.count &- count)
                        recordedText = text
                    }
                }
                if selection != nil { recordedMembers.removeSubrange((elements.count * stride)...) }
                return elements
            }
        }
    }

    private mutating func parseObject(onPath: Int) throws(JSONParseError) -> JSONValue {
        let hint = try enterContainer(isObject: true)
        var wantedKey: String?
        if onPath >= 0, onPath < textPath.count, case .key(let wanted) = textPath[onPath] { wantedKey = wanted }
        if closesAtOnce(JSONByte.closeBrace) {
            leaveContainer(isObject: true, count: 0)
            return .object(JSONObject())
        }
        var object = JSONObject(minimumCapacity: hint)
        var member = 0
        while true {
            try reachKey()
            let key = try parseKey(member: member)
            member &+= 1
            try passColon()
            if let wantedKey, key == wantedKey { nextValueOnPath = onPath + 1 }
            let value = try parseValue()
            // Duplicates are kept in order; JSONObject's lookup scans from the end, so the last wins.
            object.appendUnchecked(key: key, value: value)
            if try passSeparator(closer: JSONByte.closeBrace) {
                leaveContainer(isObject: true, count: object.count)
                return .object(object)
            }
        }
    }
}

extension JSONParser {
    /// Starts writing the recorded array's elements compactly to ``emitted``: those read so
    /// far (at `ranges`, of the input from `arrayStart` on) are copied there first, and their
    /// ranges become ranges of it.
    ///
    /// Each element is followed by a newline there, so the rows of a page are already JSON
    /// lines: a sink writes them as one run, without copying them one by one.
    mutating func startEmitting(_ ranges: inout [Range<Int>], from arrayStart: Int) {
        // The compact text is never longer than the input it is made of, and its newline
        // takes the place of the `,` (or the `]`) that follows each element in the input; a
        // word more for the copies a word at a time. The array is made at that size without
        // being filled: its bytes are plain numbers, and only those written are ever read.
        let capacity = end &- arrayStart &+ 16
        emittedStorage = [UInt8](unsafeUninitializedCapacity: capacity) { _, initialized in initialized = capacity }
        emitted = emittedStorage.withUnsafeMutableBufferPointer { $0.baseAddress }
        emittedCount = 0
        for position in ranges.indices {
            let range = ranges[position]
            let start = emittedCount
            emitInput(range.lowerBound, range.upperBound, compacting: true)
            ranges[position] = start..<emittedCount
            emit(JSONByte.newline)
        }
        recordedText = nil
    }

    /// Stops writing elements compactly and frees what was written.
    mutating func stopEmitting() {
        emitted = nil
        emittedStorage = []
        emittedCount = 0
        recordedText = nil
    }

    @inline(__always)
    mutating func emit(_ byte: UInt8) {
        emitted.unsafelyUnwrapped[emittedCount] = byte
        emittedCount &+= 1
    }

    /// Writes the `count` bytes at `source`, which can be read a word past them, a word at a time.
    @inline(__always)
    mutating func emitWords(_ source: UnsafePointer<UInt8>, count: Int) {
        let target = UnsafeMutableRawPointer(emitted.unsafelyUnwrapped + emittedCount)
        var offset = 0
        while offset < count {
            target.storeBytes(of: UnsafeRawPointer(source + offset).loadUnaligned(as: UInt64.self), toByteOffset: offset, as: UInt64.self)
            offset &+= 8
        }
        emittedCount &+= count
    }

    /// Writes the input at `start..<stop`, a value or element that was checked: as it is, or
    /// `compacting` it (it has whitespace between its tokens).
    @inline(__always)
    mutating func emitInput(_ start: Int, _ stop: Int, compacting: Bool) {
        if compacting {
            guard let written = JSONCompaction.compact(bytes + start, count: stop &- start, into: emitted.unsafelyUnwrapped + emittedCount) else {
                preconditionFailure("a value that was checked has whitespace inside a token")
            }
            emittedCount &+= written
        } else if stop &+ 8 <= end {
            emitWords(bytes + start, count: stop &- start)
        } else {
            (emitted.unsafelyUnwrapped + emittedCount).update(from: bytes + start, count: stop &- start)
            emittedCount &+= stop &- start
        }
    }
}

/// The ASCII bytes JSON syntax is made of.
enum JSONByte {
    static let tab: UInt8 = UInt8(ascii: "\t")
    static let newline: UInt8 = UInt8(ascii: "\n")
    static let carriageReturn: UInt8 = UInt8(ascii: "\r")
    static let space: UInt8 = UInt8(ascii: " ")
    static let quote: UInt8 = UInt8(ascii: "\"")
    static let backslash: UInt8 = UInt8(ascii: "\\")
    static let slash: UInt8 = UInt8(ascii: "/")
    static let comma: UInt8 = UInt8(ascii: ",")
    static let colon: UInt8 = UInt8(ascii: ":")
    static let minus: UInt8 = UInt8(ascii: "-")
    static let plus: UInt8 = UInt8(ascii: "+")
    static let dot: UInt8 = UInt8(ascii: ".")
    static let zero: UInt8 = UInt8(ascii: "0")
    static let nine: UInt8 = UInt8(ascii: "9")
    static let openBracket: UInt8 = UInt8(ascii: "[")
    static let closeBracket: UInt8 = UInt8(ascii: "]")
    static let openBrace: UInt8 = UInt8(ascii: "{")
    static let closeBrace: UInt8 = UInt8(ascii: "}")
}
