#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif
import ScreensBus

/// Why a file could not be scanned: it could not be read, or it is not the JSON it should be.
struct FileScanError: Error {
    enum Kind {
        /// open(2) or read(2) failed.
        case io
        /// The bytes are not valid JSON (or JSON lines), or a value is over a limit.
        case malformed
    }

    var kind: Kind
    /// For `.malformed`, "invalid JSON at byte N: ..." with N counted from the file's start.
    var message: String

    static func io(_ message: String) -> Self { Self(kind: .io, message: message) }

    static func json(_ error: JSONParseError) -> Self { Self(kind: .malformed, message: error.description) }

    static func json(at offset: Int, _ message: String) -> Self { json(JSONParseError(offset: offset, message: message)) }
}

/// Reads a JSON (or JSON-lines) file forwards through one fixed-size buffer and finds where
/// each value begins and ends, without building it: the file source's way to serve a file
/// of any size in memory that does not grow with it.
///
/// The scan is structural (strings, escapes, brackets), so it can skip a value it does not
/// need at the speed of a byte loop; a value that is needed is captured (its bytes, from
/// the buffer or, when it straddles a refill, from a copy) and parsed strictly with
/// `JSONValue(parsing:)`, so what is accepted and what each row holds is exactly what the
/// whole-document parser gives. Error offsets count from the start of the file.
///
/// Limits, so no file can make it trap, recurse or grow without bound: containers nest at
/// most ``maximumDepth`` levels in all (the parser's own limit), and a captured value (a
/// row, a line, a member beside the rows) is at most ``maximumValueSize`` bytes.
struct JSONFileScanner: ~Copyable {
    /// The read buffer: large enough that read(2) calls cost little, small beside any limit.
    static let chunkSize = 256 << 10
    /// The largest value captured at once: the default `max-response-size`, so one row of a
    /// file may be as large as a whole page from a server, and no larger.
    static let maximumValueSize = 64 << 20
    /// Nesting accepted in all, counting the containers around the rows: the same 512
    /// levels as the JSON parser, so a file nests as deep as a response body may.
    static let maximumDepth = 512

    private let descriptor: Int32
    private let chunk: UnsafeMutablePointer<UInt8>
    /// The file offset of `chunk[0]`.
    private var chunkOffset = 0
    /// Valid bytes in `chunk`.
    private var chunkCount = 0
    /// The next byte to look at, in `chunk`.
    private var index = 0
    private var reachedEndOfFile = false
    /// Where the value being captured starts in `chunk` (0 after a refill), if one is.
    private var captureStart: Int?
    private var captureOffset = 0
    /// The captured value's bytes from earlier chunks.
    private var captured: [UInt8] = []
    /// Where the value being read starts in the capture (a run of rows holds several).
    private var capturedValueStart = 0
    /// The kinds of the containers open while skipping one value.
    private var openContainers: [UInt8] = []

    /// Opens `path` for reading from its start.
    init(path: String) throws(FileScanError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .io(String(cString: strerror(errno))) }
        self.descriptor = descriptor
        chunk = .allocate(capacity: Self.chunkSize)
    }

    deinit {
        chunk.deallocate()
        close(descriptor)
    }

    /// The file offset of the next byte.
    var offset: Int { chunkOffset + index }

    /// Continues reading at `offset` (a value start found by an earlier scan).
    mutating func seek(to offset: Int) throws(FileScanError) {
        guard lseek(descriptor, off_t(offset), SEEK_SET) >= 0 else { throw .io(String(cString: strerror(errno))) }
        chunkOffset = offset
        chunkCount = 0
        index = 0
        reachedEndOfFile = false
        captureStart = nil
    }

    /// The next byte, without moving past it; nil at the end of the file.
    @inline(__always)
    mutating func peek() throws(FileScanError) -> UInt8? {
        if index < chunkCount { return chunk[index] }
        return try refill() ? chunk[index] : nil
    }

    /// Moves past the byte `peek()` returned.
    @inline(__always)
    mutating func advance() {
        index += 1
    }

    /// Reads the next chunk, first saving the part of the current one a capture still needs.
    private mutating func refill() throws(FileScanError) -> Bool {
        guard !reachedEndOfFile else { return false }
        if let start = captureStart {
            captured.append(contentsOf: UnsafeBufferPointer(start: chunk + start, count: chunkCount - start))
            // A run of rows may be longer than one value may; the row being read may not.
            guard captured.count - capturedValueStart <= Self.maximumValueSize else {
                throw Self.tooLarge(at: captureOffset + capturedValueStart)
            }
            captureStart = 0
        }
        chunkOffset += chunkCount
        chunkCount = 0
        index = 0
        while true {
            let count = read(descriptor, chunk, Self.chunkSize)
            if count > 0 {
                chunkCount = count
                return true
            }
            if count == 0 {
                reachedEndOfFile = true
                return false
            }
            if errno != EINTR { throw .io(String(cString: strerror(errno))) }
        }
    }

    // MARK: Capturing

    private static func tooLarge(at offset: Int) -> FileScanError {
        .json(at: offset, "a value larger than \(maximumValueSize >> 20) MiB")
    }

    /// When not nil, the text of every value ``parseCapture()`` reads is added to it: a
    /// row's text, kept so that a row nothing changes passes through as it is in the file.
    var keptTexts: JSONElementTexts?

    /// Starts capturing at the next byte.
    mutating func beginCapture() {
        captureStart = index
        captureOffset = offset
        capturedValueStart = 0
        captured.removeAll(keepingCapacity: captured.capacity <= Self.chunkSize * 4)
    }

    /// Whether ``parseCapture()`` only checks what it captured (strictly, as a parse would)
    /// and returns `null` in place of its value: set with ``keptTexts`` for rows kept as texts.
    var checksOnly = false

    /// Ends the capture before the next byte and parses it strictly as one JSON document.
    mutating func parseCapture() throws(FileScanError) -> JSONValue {
        guard let start = captureStart else { preconditionFailure("parseCapture() without beginCapture()") }
        captureStart = nil
        let offset = captureOffset
        let parsed: Result<JSONValue, JSONParseError>
        if captured.isEmpty {
            let bytes = UnsafeRawBufferPointer(start: chunk + start, count: index - start)
            parsed = Self.readCaptured(bytes, checksOnly: checksOnly, keeping: &keptTexts)
        } else {
            guard captured.count + (index - start) <= Self.maximumValueSize else { throw Self.tooLarge(at: offset) }
            captured.append(contentsOf: UnsafeBufferPointer(start: chunk + start, count: index - start))
            let checksOnly = self.checksOnly
            parsed = captured.withUnsafeBytes { bytes in Self.readCaptured(bytes, checksOnly: checksOnly, keeping: &keptTexts) }
        }
        switch parsed {
        case .success(let value): return value
        case .failure(let error): throw .json(at: offset + error.offset, error.message)
        }
    }

    /// The bytes captured so far.
    var capturedCount: Int {
        guard let start = captureStart else { return 0 }
        return captured.count + (index - start)
    }

    /// Where each row skipped by ``skipCapturedRow(depthBudget:)`` (or each line's value,
    /// by ``skipCapturedLine()``) is in the capture.
    private var capturedRows: [Range<Int>] = []
    /// Where each line passed by ``skipCapturedLine()`` is in the capture, its blanks
    /// included, its newline not: what a bad line is checked alone as.
    private var capturedLines: [Range<Int>] = []

    /// Moves past the row at the next byte, inside a capture begun at a row, noting where
    /// it is for ``checkCapturedRows()``.
    mutating func skipCapturedRow(depthBudget: Int) throws(FileScanError) {
        if capturedCount == 0 { capturedRows.removeAll(keepingCapacity: true) }
        let start = capturedCount
        capturedValueStart = start
        try skipValue(depthBudget: depthBudget)
        capturedRows.append(start..<capturedCount)
    }

    /// Ends the capture before the next byte and checks the rows it holds (skipped with
    /// ``skipCapturedRow(depthBudget:)``, the commas between them) strictly, as the elements
    /// of one array, adding their compact texts to ``keptTexts``.
    ///
    /// A pretty-printed file's rows are so checked and written compactly in one pass, as the
    /// rows of a page a server sends are, rather than checked and then copied compactly. A
    /// bad row is then checked on its own, so the error is the one reading the rows one at a
    /// time gives (`tru` ends early, it is not followed by a `]`).
    mutating func checkCapturedRows() throws(FileScanError) {
        guard let start = captureStart else { preconditionFailure("checkCapturedRows() without beginCapture()") }
        captureStart = nil
        var document: [UInt8] = []
        document.reserveCapacity(captured.count + (index - start) + 2)
        document.append(UInt8(ascii: "["))
        document.append(contentsOf: captured)
        document.append(contentsOf: UnsafeBufferPointer(start: chunk + start, count: index - start))
        document.append(UInt8(ascii: "]"))
        // In the document each row is one byte after where it is in the capture.
        try checkRows(document, rows: capturedRows.map { (inDocument: ($0.lowerBound + 1)..<($0.upperBound + 1), inCapture: $0.lowerBound) })
    }

    /// Moves past the next line that is not blank, inside a capture begun at a line, noting
    /// where its value is for ``checkCapturedLines()``; false at the end of the file.
    ///
    /// The line's value is found by structure (as ``skipCapturedRow(depthBudget:)`` finds a
    /// row), so that a run of lines can be checked as the elements of one array: each line
    /// of a run is then exactly one element, and no two lines can pass for one. A line the
    /// structure does not find to be one value and whitespace is read alone, as every line
    /// was before runs (``readLineAlone(startingAt:)``): its error, or its value, is the one
    /// reading it alone gives.
    mutating func skipCapturedLine() throws(FileScanError) -> Bool {
        if capturedCount == 0 { forgetCapturedLines() }
        while true {
            let lineStart = capturedCount
            // A line, blank or not, may be as long as a value may (as when lines are read alone).
            capturedValueStart = lineStart
            try skipBlanks()
            guard let first = try peek() else { return false }
            if first == 0x0A {
                advance()
                // Blank lines hold no row; however many there are, the capture stays a run's size.
                if capturedCount >= FileRowIndex.checkedRunSize {
                    try checkCapturedLines()
                    beginCapture()
                    forgetCapturedLines()
                }
                continue
            }
            let valueStart = capturedCount
            var valueEnd = valueStart
            let isOneValue: Bool
            do throws(FileScanError) {
                // One level less than a line may nest: the run's array is one more.
                try skipValue(depthBudget: Self.maximumDepth - 1)
                valueEnd = capturedCount
                if capturedNewline(from: valueStart) != nil {
                    // A container may hold a newline as whitespace; a line may not: `[1,` and
                    // `2]` are two bad lines, not one row.
                    isOneValue = false
                } else {
                    try skipBlanks()
                    isOneValue = (try peek() ?? 0x0A) == 0x0A
                }
            } catch {
                // A read error, or a line over the size limit, is the error; a structure the
                // scan refuses is the line's, told as the parser tells it.
                guard error.kind == .malformed, captured.count - capturedValueStart <= Self.maximumValueSize else { throw error }
                isOneValue = false
            }
            guard isOneValue else {
                try readLineAlone(startingAt: lineStart)
                return true
            }
            capturedRows.append(valueStart..<valueEnd)
            capturedLines.append(lineStart..<capturedCount)
            if try peek() != nil { advance() }
            return true
        }
    }

    private mutating func forgetCapturedLines() {
        capturedRows.removeAll(keepingCapacity: true)
        capturedLines.removeAll(keepingCapacity: true)
    }

    /// Ends the capture before the next byte and checks the lines it holds (passed with
    /// ``skipCapturedLine()``) strictly, as the elements of one array, adding their compact
    /// texts to ``keptTexts``: JSON lines written with spaces (`", "` and `": "`, as
    /// Python's `json.dumps` writes them) are compacted as they are checked, as a
    /// pretty-printed array's rows are, not checked and then copied compactly.
    mutating func checkCapturedLines() throws(FileScanError) {
        guard captureStart != nil else { preconditionFailure("checkCapturedLines() without beginCapture()") }
        let (document, rows) = capturedLinesDocument()
        try checkRows(document, rows: rows, lines: capturedLines)
        captureStart = nil
    }

    /// The values of the lines captured so far as one JSON array, and where each is in it
    /// and in the capture.
    private func capturedLinesDocument() -> (document: [UInt8], rows: [(inDocument: Range<Int>, inCapture: Int)]) {
        let start = captureStart ?? index
        var document: [UInt8] = []
        document.reserveCapacity(captured.count + (index - start) + 2)
        var rows: [(inDocument: Range<Int>, inCapture: Int)] = []
        rows.reserveCapacity(capturedRows.count)
        document.append(UInt8(ascii: "["))
        let chunkPart = UnsafeBufferPointer(start: chunk + start, count: index - start)
        for row in capturedRows {
            if !rows.isEmpty { document.append(UInt8(ascii: ",")) }
            let first = document.count
            // A line's value may begin in the bytes saved from earlier chunks and end in this one.
            if row.lowerBound < captured.count {
                document.append(contentsOf: captured[row.lowerBound..<min(row.upperBound, captured.count)])
            }
            if row.upperBound > captured.count {
                document.append(contentsOf: chunkPart[(max(row.lowerBound, captured.count) - captured.count)..<(row.upperBound - captured.count)])
            }
            rows.append((first..<document.count, row.lowerBound))
        }
        document.append(UInt8(ascii: "]"))
        return (document, rows)
    }

    /// Reads the line starting at `lineStart` in the capture on its own, after checking the
    /// lines of the run before it (their errors come first): its bytes up to its newline,
    /// parsed strictly, its error thrown or its compact text kept; the capture then begins
    /// again after the line.
    private mutating func readLineAlone(startingAt lineStart: Int) throws(FileScanError) {
        let (document, rows) = capturedLinesDocument()
        try checkRows(document, rows: rows, lines: capturedLines)
        forgetCapturedLines()
        // The structure may have stopped before the newline (a bracket too deep, a second
        // value): read on to it.
        let newlineSeen = capturedNewline(from: lineStart) != nil
        if !newlineSeen {
            var blank = false
            try moveToNewline(blank: &blank)
        }
        let lineEnd = capturedNewline(from: lineStart) ?? capturedCount
        let begin = captureStart ?? index
        var line = lineStart < captured.count ? Array(captured[lineStart..<min(lineEnd, captured.count)]) : []
        if lineEnd > captured.count {
            let from = max(lineStart, captured.count) - captured.count
            line.append(contentsOf: UnsafeBufferPointer(start: chunk + begin + from, count: lineEnd - captured.count - from))
        }
        let offset = captureOffset + lineStart
        let read = line.withUnsafeBytes { bytes in Self.readCaptured(bytes, checksOnly: true, keeping: &keptTexts) }
        if case .failure(let error) = read { throw .json(at: offset + error.offset, error.message) }
        // Only a line that is no value alone can lead the structure past its newline; should
        // one that is lead it there, the line is refused rather than read as more or less.
        guard !newlineSeen else { throw .json(at: offset, "a line holds more or less than one JSON value") }
        if try peek() != nil { advance() }
        beginCapture()
    }

    /// Where the first newline at or after `start` in the capture is, if it was read.
    private func capturedNewline(from start: Int) -> Int? {
        if start < captured.count, let newline = captured[start...].firstIndex(of: 0x0A) { return newline }
        let begin = captureStart ?? index
        let from = max(start - captured.count, 0)
        guard begin + from < index, let found = memchr(chunk + begin + from, 0x0A, index - begin - from) else { return nil }
        return captured.count + from + (found.assumingMemoryBound(to: UInt8.self) - (chunk + begin + from))
    }

    /// Moves past spaces, tabs and carriage returns: the whitespace of a line, not its end.
    private mutating func skipBlanks() throws(FileScanError) {
        while let byte = try peek(), byte == 0x20 || byte == 0x09 || byte == 0x0D { advance() }
    }

    /// Checks `rows` of `document` (a JSON array of them) strictly in one pass, adding
    /// their compact texts to ``keptTexts``. A bad row is then checked on its own (for
    /// lines, its whole line, as the capture has it), so the error and its byte are the ones
    /// reading the rows one at a time gives.
    private mutating func checkRows(
        _ document: [UInt8], rows: [(inDocument: Range<Int>, inCapture: Int)], lines: [Range<Int>]? = nil
    ) throws(FileScanError) {
        let failure: JSONParseError
        do throws(JSONParseError) {
            guard let (_, texts) = try JSONValue.parseArrayKeepingTexts(document, skippingElements: true) else {
                preconditionFailure("rows captured between brackets parsed as another type")
            }
            keptTexts?.append(contentsOf: texts)
            return
        } catch {
            failure = error
        }
        let offset = captureOffset
        let alone: [(bytes: ArraySlice<UInt8>, inCapture: Int)]
        if let lines {
            var capture = captured
            if let start = captureStart { capture.append(contentsOf: UnsafeBufferPointer(start: chunk + start, count: index - start)) }
            alone = lines.map { (capture[$0], $0.lowerBound) }
        } else {
            alone = rows.map { (document[$0.inDocument], $0.inCapture) }
        }
        for row in alone {
            let rowFailure = row.bytes.withUnsafeBytes { bytes in
                Result { () throws(JSONParseError) in try JSONValue.validateFindingWhitespace(bytes) }
            }
            if case .failure(let error) = rowFailure { throw .json(at: offset + row.inCapture + error.offset, error.message) }
        }
        // Each row is valid on its own: the document's bracket is where the error is.
        throw .json(at: offset + max(0, failure.offset - 1), failure.message)
    }

    /// One captured value, parsed strictly (or only checked, `null` standing for it), its
    /// text appended to `texts` when they are kept and it is valid.
    private static func readCaptured(
        _ bytes: UnsafeRawBufferPointer, checksOnly: Bool, keeping texts: inout JSONElementTexts?
    ) -> Result<JSONValue, JSONParseError> {
        var compact = false
        let parsed = Result { () throws(JSONParseError) -> JSONValue in
            if checksOnly {
                compact = try !JSONValue.validateFindingWhitespace(bytes)
                return .null
            }
            return try JSONValue(parsing: bytes)
        }
        guard case .success = parsed else { return parsed }
        // A row with no whitespace between its tokens (JSON lines as most tools write them)
        // is its own compact text, copied in one piece.
        if compact { texts?.append(textOfCompactValue: bytes) } else { texts?.append(textOfParsedValue: bytes) }
        return parsed
    }

    /// Captures the value at the next byte and parses it: checks a value that is not a row.
    mutating func parseValue(depthBudget: Int) throws(FileScanError) -> JSONValue {
        beginCapture()
        try skipValue(depthBudget: depthBudget)
        return try parseCapture()
    }

    // MARK: Structure

    @inline(__always)
    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    mutating func skipWhitespace() throws(FileScanError) {
        while let byte = try peek(), Self.isWhitespace(byte) { advance() }
    }

    /// Moves past the value that starts at the next byte, finding its end by structure
    /// alone; `depthBudget` is how many levels it may nest (containers around it already
    /// took the rest of ``maximumDepth``).
    mutating func skipValue(depthBudget: Int) throws(FileScanError) {
        guard let first = try peek() else { throw .json(at: offset, "unexpected end of input") }
        switch first {
        case UInt8(ascii: "\""): try skipString()
        case UInt8(ascii: "["), UInt8(ascii: "{"): try skipContainer(depthBudget: depthBudget)
        case UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: ":"):
            throw .json(at: offset, "expected a value")
        default:
            // A literal or number: up to the next structural byte or whitespace; the parser
            // checks its spelling when the value is captured.
            while let byte = try peek() {
                switch byte {
                case 0x20, 0x0A, 0x0D, 0x09, UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: ":"),
                    UInt8(ascii: "["), UInt8(ascii: "{"), UInt8(ascii: "\""):
                    return
                default: advance()
                }
            }
        }
    }

    /// Moves past the string whose opening quote is the next byte.
    private mutating func skipString() throws(FileScanError) {
        let start = offset
        advance()
        while true {
            while index < chunkCount {
                index = Self.quoteOrBackslash(in: chunk, from: index, to: chunkCount)
                guard index < chunkCount else { break }
                let byte = chunk[index]
                index += 1
                if byte == UInt8(ascii: "\"") { return }
                // A backslash: the escaped byte may be a quote; step over it, wherever it is.
                guard try peek() != nil else { break }
                index += 1
            }
            guard try refill() else { throw .json(at: start, "unexpected end of input in a string") }
        }
    }

    /// The index of the first quote or backslash in `bytes[start..<end]`, or `end`.
    ///
    /// Eight bytes at a time: a byte equal to either one becomes zero in one of the two
    /// words below, and the lowest zero byte found this way is always a real one (borrows
    /// only flag bytes above it).
    @inline(__always)
    private static func quoteOrBackslash(in bytes: UnsafeMutablePointer<UInt8>, from start: Int, to end: Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        var cursor = start
        while cursor &+ 8 <= end {
            let word = UnsafeRawPointer(bytes + cursor).loadUnaligned(as: UInt64.self)
            let quotes = word ^ (ones &* 0x22)
            let backslashes = word ^ (ones &* 0x5C)
            let hits = (((quotes &- ones) & ~quotes) | ((backslashes &- ones) & ~backslashes)) & (ones &* 0x80)
            if hits != 0 { return cursor &+ hits.trailingZeroBitCount / 8 }
            cursor &+= 8
        }
        while cursor < end, bytes[cursor] != 0x22, bytes[cursor] != 0x5C { cursor &+= 1 }
        return cursor
    }

    /// The index of the first quote or bracket (`"`, `[`, `]`, `{`, `}`) in
    /// `bytes[start..<end]`, or `end`.
    ///
    /// Eight bytes at a time, as ``quoteOrBackslash(in:from:to:)``: `[` and `{` differ only
    /// in bit 5, as do `]` and `}`, so with that bit set a bracket is one of two bytes; the
    /// lowest flag of the three tests is always a real one.
    @inline(__always)
    static func structuralByte(in bytes: UnsafeMutablePointer<UInt8>, from start: Int, to end: Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        var cursor = start
        while cursor &+ 8 <= end {
            let word = UnsafeRawPointer(bytes + cursor).loadUnaligned(as: UInt64.self)
            let folded = word | (ones &* 0x20)
            let quotes = word ^ (ones &* 0x22)
            let openers = folded ^ (ones &* 0x7B)
            let closers = folded ^ (ones &* 0x7D)
            let hits = (((quotes &- ones) & ~quotes) | ((openers &- ones) & ~openers) | ((closers &- ones) & ~closers)) & (ones &* 0x80)
            if hits != 0 { return cursor &+ hits.trailingZeroBitCount / 8 }
            cursor &+= 8
        }
        while cursor < end {
            switch bytes[cursor] {
            case 0x22, 0x5B, 0x5D, 0x7B, 0x7D: return cursor
            default: cursor &+= 1
            }
        }
        return cursor
    }

    /// Moves past the array or object whose opening bracket is the next byte.
    private mutating func skipContainer(depthBudget: Int) throws(FileScanError) {
        openContainers.removeAll(keepingCapacity: true)
        while true {
            while index < chunkCount {
                let byte = chunk[index]
                switch byte {
                case UInt8(ascii: "\""):
                    try skipString()
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    guard openContainers.count < depthBudget else {
                        throw .json(at: offset, "nesting deeper than \(Self.maximumDepth) levels")
                    }
                    openContainers.append(byte)
                    index += 1
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    let opener = openContainers.removeLast()
                    guard (opener == UInt8(ascii: "[")) == (byte == UInt8(ascii: "]")) else {
                        throw .json(at: offset, opener == UInt8(ascii: "[") ? "expected ',' or ']'" : "expected ',' or '}'")
                    }
                    index += 1
                    if openContainers.isEmpty { return }
                default:
                    // Whitespace, commas, colons, numbers and literals change nothing here:
                    // passed a word at a time (a pretty-printed row is mostly indentation).
                    index = Self.structuralByte(in: chunk, from: index &+ 1, to: chunkCount)
                }
            }
            guard try refill() else { throw .json(at: offset, "unexpected end of input") }
        }
    }

    /// Moves past the `[` at the next byte and any whitespace: true when an element
    /// follows, false when the array is empty (the `]` is passed too).
    mutating func enterArray() throws(FileScanError) -> Bool {
        try enterContainer(closer: UInt8(ascii: "]"))
    }

    /// Moves past the `{` at the next byte: true when a member follows, false when the object is empty.
    mutating func enterObject() throws(FileScanError) -> Bool {
        try enterContainer(closer: UInt8(ascii: "}"))
    }

    private mutating func enterContainer(closer: UInt8) throws(FileScanError) -> Bool {
        advance()
        try skipWhitespace()
        guard try peek() == closer else { return true }
        advance()
        return false
    }

    /// After an element: moves past the `,` and whitespace to the next element (true), or
    /// past the closing `]` (false).
    mutating func nextElement() throws(FileScanError) -> Bool {
        try nextMember(closer: UInt8(ascii: "]"))
    }

    /// After an object member's value: past the `,` and whitespace (true), or past the `}` (false).
    mutating func nextMember(closer: UInt8 = UInt8(ascii: "}")) throws(FileScanError) -> Bool {
        try skipWhitespace()
        guard let byte = try peek() else {
            throw .json(at: offset, "unexpected end of input, \(Self.expectation(closer))")
        }
        advance()
        switch byte {
        case UInt8(ascii: ","):
            try skipWhitespace()
            return true
        case closer:
            return false
        default:
            throw .json(at: offset - 1, Self.expectation(closer))
        }
    }

    private static func expectation(_ closer: UInt8) -> String {
        "expected ',' or '\(Character(Unicode.Scalar(closer)))'"
    }

    /// Reads an object member's key and the `:` after it, leaving the scanner at its value.
    mutating func memberKey() throws(FileScanError) -> String {
        guard try peek() == UInt8(ascii: "\"") else { throw .json(at: offset, "expected a string key") }
        beginCapture()
        try skipString()
        guard case .string(let key) = try parseCapture() else { preconditionFailure("a captured string parsed as another type") }
        try skipWhitespace()
        guard try peek() == UInt8(ascii: ":") else { throw .json(at: offset, "expected ':'") }
        advance()
        try skipWhitespace()
        return key
    }

    // MARK: JSON lines

    /// Moves to the next line that is not blank and past it; returns where it starts and,
    /// when `parsing`, its value. Nil at the end of the file.
    mutating func nextLine(parsing: Bool) throws(FileScanError) -> (offset: Int, value: JSONValue?)? {
        while try peek() != nil {
            let start = offset
            if parsing { beginCapture() }
            var blank = true
            try moveToNewline(blank: &blank)
            if blank {
                captureStart = nil
            } else {
                // Not `parsing ? ... : nil`: JSONValue takes `nil` as a literal for `.null`.
                var value: JSONValue?
                if parsing { value = try parseCapture() }
                if try peek() != nil { advance() }
                return (start, value)
            }
            if try peek() != nil { advance() }
        }
        return nil
    }

    /// Moves to the next newline (or the end of the file), clearing `blank` if a byte before
    /// it is not whitespace. The newline is found by `memchr` a chunk at a time, not byte by
    /// byte, and a line is known not to be blank at its first such byte (usually its first).
    private mutating func moveToNewline(blank: inout Bool) throws(FileScanError) {
        while true {
            if index >= chunkCount {
                guard try refill() else { return }
            }
            let newline = memchr(chunk + index, 0x0A, chunkCount - index)
            let stop = newline.map { $0.assumingMemoryBound(to: UInt8.self) - chunk } ?? chunkCount
            var cursor = index
            while blank, cursor < stop {
                let byte = chunk[cursor]
                if byte != 0x20, byte != 0x09, byte != 0x0D { blank = false }
                cursor += 1
            }
            index = stop
            if newline != nil { return }
        }
    }
}
