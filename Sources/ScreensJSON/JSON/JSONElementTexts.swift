/// One step from a JSON document's root toward a value inside it.
public enum JSONPathStep: Sendable, Hashable {
    /// The member of an object with this key (the last one, when the key repeats).
    case key(String)
    /// The element of an array at this 0-based position.
    case index(Int)
}

/// The elements of one JSON array as the text they were received as: one range per
/// element into a shared buffer.
///
/// Each element's text is its bytes as received with the whitespace between tokens left
/// out: strings keep their escapes as sent (`\/` stays `\/`), numbers their digits as sent
/// (`1.50` stays `1.50`, an id beyond 2^53 its exact digits), objects their member order
/// (repeated keys included). So it is one line of JSON lines that reads back as the same
/// value, and a stage that leaves a row unchanged writes it instead of encoding the row
/// again: a row passes through untouched. For text ``JSONWriter`` produced (the cache stores
/// pages that way) it is exactly the writer's bytes.
public struct JSONElementTexts: Sendable, Hashable {
    private var text: [UInt8]
    private(set) var ranges: [Range<Int>]
    /// Where the selected members of each element are, when they were looked for as the
    /// elements were checked (see ``JSONValue/parse(_:keepingElementTextsAt:skippingElements:findingMembers:)``).
    /// Derived from the texts, so it takes no part in equality.
    package private(set) var memberTape: JSONMemberTape?

    /// Equal when they hold the same elements' texts, in order, however their buffers lay
    /// them out (back to back, between commas, one per line).
    public static func == (left: JSONElementTexts, right: JSONElementTexts) -> Bool {
        guard left.ranges.count == right.ranges.count else { return false }
        // One buffer laid out alike (the same storage compares at once).
        if left.ranges == right.ranges, left.text == right.text { return true }
        return left.text.withUnsafeBufferPointer { leftBytes in
            right.text.withUnsafeBufferPointer { rightBytes in
                zip(left.ranges, right.ranges).allSatisfy { leftRange, rightRange in
                    leftRange.count == rightRange.count && leftBytes[leftRange].elementsEqual(rightBytes[rightRange])
                }
            }
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ranges.count)
        text.withUnsafeBytes { bytes in
            for range in ranges {
                hasher.combine(range.count)
                hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: bytes[range]))
            }
        }
    }

    /// No elements yet; add them with ``append(textOfParsedValue:)``.
    public init() {
        text = []
        ranges = []
    }

    /// Adds one more element: `bytes` must hold exactly one JSON value that parsed (with
    /// whitespace around it allowed), as a file source's row does once it is read. Its text
    /// is kept with the whitespace between tokens left out.
    public mutating func append(textOfParsedValue bytes: UnsafeRawBufferPointer) {
        let start = text.count
        Self.appendCompacting(bytes.bindMemory(to: UInt8.self), 0..<bytes.count, to: &text)
        ranges.append(start..<text.count)
        memberTape = nil
    }

    /// Adds one more element whose text `bytes` is already compact: one JSON value that
    /// parsed with no whitespace between or around its tokens (see
    /// ``JSONValue/validateFindingWhitespace(_:)``), copied as it is.
    package mutating func append(textOfCompactValue bytes: UnsafeRawBufferPointer) {
        let start = text.count
        text.append(contentsOf: bytes)
        ranges.append(start..<text.count)
        memberTape = nil
    }

    /// Adds the elements of `other`, in order, each its own compact text (whatever else
    /// `other`'s buffer holds, such as the commas of the array it was read from, is left out).
    package mutating func append(contentsOf other: JSONElementTexts) {
        text.reserveCapacity(text.count + (other.ranges.last?.upperBound ?? 0) - (other.ranges.first?.lowerBound ?? 0))
        ranges.reserveCapacity(ranges.count + other.ranges.count)
        other.text.withUnsafeBufferPointer { buffer in
            for range in other.ranges {
                let start = text.count
                text.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[range]))
                ranges.append(start..<text.count)
            }
        }
        memberTape = nil
    }

    /// Calls `body` with the buffer the texts share and the ranges of the first `count`
    /// elements' texts in it, in order: a writer copies each without a slice per element.
    package func withTexts<Result, Failure: Error>(
        count: Int, _ body: (UnsafeBufferPointer<UInt8>, ArraySlice<Range<Int>>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try text.withUnsafeBufferPointer { buffer throws(Failure) in try body(buffer, ranges[..<count]) }
    }

    /// How many elements the array had.
    public var count: Int { ranges.count }

    /// The compact text of element `index`. Never nil for texts made by this module; the
    /// optional is kept for callers that handle a missing text by encoding the value.
    public subscript(index: Int) -> ArraySlice<UInt8>? {
        text[ranges[index]]
    }

    /// The value of element `index`, parsed from its text.
    ///
    /// Texts hold values that parsed when they were kept, and parse again to the same value;
    /// one that does not is a defect here, and stops the process rather than stand in for a row.
    public func value(at index: Int) -> JSONValue {
        let result = text.withUnsafeBytes { bytes in
            Result { () throws(JSONParseError) in try JSONValue(parsing: UnsafeRawBufferPointer(rebasing: bytes[ranges[index]])) }
        }
        switch result {
        case .success(let value): return value
        case .failure(let error): preconditionFailure("a kept element text does not parse: \(error)")
        }
    }

    /// A 64-bit digest of every element's text, in order, keyed by a number drawn once per
    /// process: a page's rows compared with earlier pages' in one pass over their bytes, eight
    /// at a time (SipHash through `Hasher` took an eighth of a pass-through run).
    ///
    /// Equal texts always give equal digests, so a repeated page is never missed; different
    /// texts collide with a chance near 2^-64, and a collision is a loud false alarm (the
    /// page named as a repeat), never a row lost or doubled.
    public var contentDigest: UInt64 {
        text.withUnsafeBytes { bytes in Self.digest(of: bytes, ranges: ranges, key: Self.digestKey) }
    }

    /// Where the texts at `ranges` of `text` lie as one run of JSON lines, each followed by a
    /// newline and the next starting right after it, as the parser writes the rows of a
    /// formatted page (see `JSONParser.startEmitting(_:from:)`); nil for any other layout
    /// (the rows of a compact body, between commas) and for no ranges. A writer of JSON lines
    /// writes such a run as it is.
    package static func lineRun(in text: UnsafeBufferPointer<UInt8>, _ ranges: ArraySlice<Range<Int>>) -> Range<Int>? {
        guard let first = ranges.first else { return nil }
        var next = first.lowerBound
        for range in ranges {
            guard range.lowerBound == next, range.upperBound < text.count, text[range.upperBound] == JSONByte.newline else { return nil }
            next = range.upperBound &+ 1
        }
        return first.lowerBound..<next
    }

    /// The digest of ``contentDigest`` over the texts at `ranges` of `bytes`, keyed by `key`.
    static func digest(of bytes: UnsafeRawBufferPointer, ranges: [Range<Int>], key: UInt64) -> UInt64 {
        // Four lanes over each text's 32-byte blocks, so the multiplications overlap instead
        // of waiting on each other; the lanes, the rest of the text and its length are then
        // folded into one state.
        var state = key ^ UInt64(truncatingIfNeeded: ranges.count)
        @inline(__always) func mixed(_ state: UInt64, _ word: UInt64) -> UInt64 {
            let product = (state ^ word) &* 0x9E37_79B9_7F4A_7C15
            return product ^ (product >> 29)
        }
        for range in ranges {
            var offset = range.lowerBound
            var lanes = (state, state ^ 0x2545_F491_4F6C_DD1D, state ^ 0x6A09_E667_F3BC_C909, state ^ 0xBB67_AE85_84CA_A73B)
            while offset + 32 <= range.upperBound {
                lanes.0 = mixed(lanes.0, bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                lanes.1 = mixed(lanes.1, bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
                lanes.2 = mixed(lanes.2, bytes.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self))
                lanes.3 = mixed(lanes.3, bytes.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self))
                offset += 32
            }
            state = mixed(mixed(mixed(mixed(lanes.0, lanes.1), lanes.2), lanes.3), UInt64(truncatingIfNeeded: range.count))
            while offset + 8 <= range.upperBound {
                state = mixed(state, bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                offset += 8
            }
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while offset < range.upperBound {
                tail |= UInt64(bytes[offset]) << shift
                shift += 8
                offset += 1
            }
            state = mixed(state, tail)
        }
        return mixed(state, 0x5A17_5A17_5A17_5A17)
    }

    private static let digestKey = UInt64.random(in: .min ... .max)

    /// The whole array as compact JSON: `[`, the elements' texts joined by `,`, `]`.
    public var arrayText: [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(ranges.reduce(2) { $0 + $1.count + 1 })
        result.append(JSONByte.openBracket)
        for (position, range) in ranges.enumerated() {
            if position > 0 { result.append(JSONByte.comma) }
            result.append(contentsOf: text[range])
        }
        result.append(JSONByte.closeBracket)
        return result
    }

    /// Texts a stage wrote itself: each range of `text` holds one value of valid, compact
    /// JSON (no whitespace between tokens), as ``JSONWriter`` writes it. Nothing is checked
    /// here; a range that does not parse stops the process when its value is read.
    package init(compactText text: [UInt8], ranges: [Range<Int>]) {
        self.init(text: text, ranges: ranges, compacting: false)
    }

    /// Texts over `text`: each range must hold one whole value of valid JSON. When
    /// `compacting`, the values are copied without the whitespace between their tokens.
    init(text: [UInt8], ranges: [Range<Int>], compacting: Bool, memberTape: JSONMemberTape? = nil) {
        self.memberTape = memberTape
        guard compacting else {
            self.text = text
            self.ranges = ranges
            return
        }
        var compact: [UInt8] = []
        compact.reserveCapacity(ranges.reduce(0) { $0 + $1.count })
        var compactRanges: [Range<Int>] = []
        compactRanges.reserveCapacity(ranges.count)
        text.withUnsafeBufferPointer { bytes in
            for range in ranges {
                let start = compact.count
                Self.appendCompacting(bytes, range, to: &compact)
                compactRanges.append(start..<compact.count)
            }
        }
        self.text = compact
        self.ranges = compactRanges
    }

    /// Copies the valid JSON value in `range`, leaving out whitespace outside strings
    /// (``JSONCompaction``).
    private static func appendCompacting(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, to output: inout [UInt8]) {
        guard JSONCompaction.append(UnsafeBufferPointer(rebasing: bytes[range]), to: &output) else {
            preconditionFailure("a value that parsed has whitespace inside a token")
        }
    }
}

extension JSONElementTexts {
    /// Finds the members of `selection` in the elements at `elements` (the tape's first
    /// element is `elements.lowerBound`), as a source finds them while it checks a page: for
    /// texts kept without them (a file source's rows, a cache replay's, a page whose rows
    /// were too small for their positions to be kept). A stage asks for a few hundred rows at
    /// a time, so the tape stays small whatever the rows' size.
    package func memberTape(finding selection: JSONMemberSelection, elements: Range<Int>) -> JSONMemberTape {
        let stride = 1 + 2 * selection.count
        let unread = JSONMemberTape.Status.unread.rawValue
        var entries = Array(repeating: -1, count: elements.count * stride)
        for position in 0..<elements.count { entries[position * stride] = unread }
        text.withUnsafeBufferPointer { bytes in
            guard let base = bytes.baseAddress else { return }
            // One parser over the shared buffer, moved from row to row: a key that repeats the
            // row before's at its place is passed after one comparison, as in a page check.
            var parser = JSONParser(bytes: base, start: 0, end: bytes.count)
            parser.recordedMembers = entries
            entries = []  // one owner, so the parser's writes copy nothing
            for (position, element) in elements.enumerated() {
                let range = ranges[element]
                guard !range.isEmpty, bytes[range.lowerBound] == JSONByte.openBrace else { continue }
                parser.restart(start: range.lowerBound, end: range.upperBound)
                do throws(JSONParseError) {
                    try parser.skipRow(selection, startingElementAt: range.lowerBound, entry: position * stride)
                } catch {
                    // A kept text that does not read again: a defect the tree path reports for its row.
                    parser.recordedMembers[position * stride] = unread
                }
            }
            entries = parser.recordedMembers
        }
        return JSONMemberTape(selection: selection, entries: entries, count: elements.count)!
    }
}

extension JSONValue {
    /// Parses one document (as ``init(parsing:)-([UInt8])`` does) that must be an array, and
    /// keeps the text of each of its elements; nil when the document is valid JSON but not
    /// an array. With `skippingElements`, the elements are checked but not parsed (each one
    /// is `null`; see ``parse(_:keepingElementTextsAt:skippingElements:)``).
    public static func parseArrayKeepingTexts(
        _ bytes: [UInt8], skippingElements: Bool = false
    ) throws(JSONParseError) -> (elements: [JSONValue], texts: JSONElementTexts)? {
        let (value, texts) = try parse(bytes, keepingElementTextsAt: [], skippingElements: skippingElements)
        guard case .array(let elements) = value, let texts else { return nil }
        return (elements, texts)
    }

    /// Parses one document (as ``init(parsing:)-([UInt8])`` does) and keeps the text of
    /// each element of the array at `path` (a page's rows: `[.key("items")]` in a headless
    /// page); the texts are nil when there is no array there.
    ///
    /// Costs what the plain parse costs, plus a compact copy of the array's elements when
    /// they hold whitespace between their tokens (a pretty-printed body).
    ///
    /// With `skippingElements`, the elements there are checked exactly as a parse would check
    /// them (the same input is refused with the same error) but not parsed: the returned
    /// value holds `null` in each one's place, and the texts are the only way to read them
    /// (``LazyRowValues`` parses them when asked). A page whose rows only pass through costs
    /// no tree.
    public static func parse(
        _ bytes: [UInt8], keepingElementTextsAt path: [JSONPathStep], skippingElements: Bool = false
    ) throws(JSONParseError) -> (value: JSONValue, texts: JSONElementTexts?) {
        try parse(bytes, keepingElementTextsAt: path, skippingElements: skippingElements, findingMembers: nil)
    }

    /// Parses as ``parse(_:keepingElementTextsAt:skippingElements:)`` does and, when the
    /// elements are only checked, finds the members of `selection` in each of them on the way:
    /// the texts then carry where they are (``JSONElementTexts/memberTape``).
    ///
    /// With `maximumElements`, an array there holding more elements is refused as soon as
    /// its element past the limit starts (``JSONParseError/elementLimit``), so a page of
    /// millions of rows costs no more than the body.
    package static func parse(
        _ bytes: [UInt8], keepingElementTextsAt path: [JSONPathStep], skippingElements: Bool, findingMembers selection: JSONMemberSelection?,
        maximumElements: Int = .max
    ) throws(JSONParseError) -> (value: JSONValue, texts: JSONElementTexts?) {
        guard !bytes.isEmpty else { throw JSONParseError(offset: 0, message: "unexpected end of input") }
        let result = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONParseError) -> (JSONValue, [Range<Int>]?, Bool, JSONMemberTape?, [UInt8]?) in
                var parser = JSONParser(bytes: buffer.baseAddress!, start: 0, end: buffer.count)
                parser.skipsRecordedElements = skippingElements
                parser.memberSelection = selection
                parser.maximumRecordedElements = maximumElements
                let value = try parser.parseDocument(keepingElementTextsAt: path)
                let ranges = parser.recordedRanges
                var tape: JSONMemberTape?
                if skippingElements, let selection, let ranges {
                    tape = JSONMemberTape(selection: selection, entries: parser.recordedMembers, count: ranges.count)
                }
                return (value, ranges, parser.recordedWhitespace, tape, parser.recordedText)
            }
        }
        let (value, ranges, whitespace, tape, compactText) = try result.get()
        // Checked elements with whitespace were written compactly as they were read; parsed
        // ones are copied compactly here.
        return (value, ranges.map { JSONElementTexts(text: compactText ?? bytes, ranges: $0, compacting: compactText == nil && whitespace, memberTape: tape) })
    }
}
