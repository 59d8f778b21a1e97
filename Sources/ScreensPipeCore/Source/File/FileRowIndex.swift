import ScreensBus

/// Where a file's rows are: how they are laid out, how many there are, and the byte offset
/// of every ``stride``-th row, so a page is read by seeking near its first row instead of
/// from the start of the file. Built by one scan of the file; its size grows by one offset
/// per ``stride`` rows (1.25 MB for 10 million rows), never with the rows' bytes.
struct FileRowIndex: Sendable {
    /// How the rows sit in the file.
    enum Layout: Sendable, Hashable {
        /// The elements of an array inside `enclosingDepth` containers (0: the document is
        /// the array; 1: it is a member of the top object, and so on).
        case array(enclosingDepth: Int)
        /// One value per line, blank lines skipped.
        case lines
    }

    /// Rows between two recorded offsets.
    static let stride = 64

    let layout: Layout
    let rowCount: Int
    /// The byte offset of row `k * stride`, for every `k`.
    let checkpoints: [Int]

    /// What the file holds instead of an array of rows at `records`.
    struct NotAnArray: Error {
        /// The JSON type found there, or nil when the path leads nowhere.
        var typeName: String?
    }

    /// Scans the file at `path`: a JSON array, an object (or array) with the rows' array at
    /// `records`, or JSON lines, told apart by the first byte as before. The whole document
    /// is checked (values beside the rows strictly, the rows by structure; each row is parsed
    /// strictly when its page is read).
    static func build(path: String, records: FieldPath?) throws(FileScanError) -> Result<FileRowIndex, NotAnArray> {
        var scanner = try JSONFileScanner(path: path)
        if try startsWithByteOrderMark(&scanner) {
            throw .json(
                at: 0, "the file starts with a UTF-8 byte order mark (EF BB BF), which JSON does not allow; save it without one")
        }
        try scanner.skipWhitespace()
        let first = try scanner.peek()
        guard first == UInt8(ascii: "[") || (first == UInt8(ascii: "{") && records != nil) else {
            try scanner.seek(to: 0)
            return .success(try lines(&scanner))
        }
        var enclosingDepth = 0
        for component in records?.components ?? [] {
            guard let next = try locate(component, depth: enclosingDepth, in: &scanner) else {
                return .failure(NotAnArray(typeName: nil))
            }
            try scanner.seek(to: next)
            enclosingDepth += 1
        }
        let target = try scanner.peek()
        guard target == UInt8(ascii: "[") else { return .failure(NotAnArray(typeName: target.map(typeName(startingWith:)))) }
        return .success(try array(&scanner, enclosingDepth: enclosingDepth))
    }

    private static func startsWithByteOrderMark(_ scanner: inout JSONFileScanner) throws(FileScanError) -> Bool {
        for expected: UInt8 in [0xEF, 0xBB, 0xBF] {
            guard try scanner.peek() == expected else {
                try scanner.seek(to: 0)
                return false
            }
            scanner.advance()
        }
        return true
    }

    /// Counts the elements of the array at the scanner, recording checkpoints; the rows
    /// nest inside `enclosingDepth` containers and the array itself.
    private static func array(_ scanner: inout JSONFileScanner, enclosingDepth: Int) throws(FileScanError) -> FileRowIndex {
        let rowBudget = JSONFileScanner.maximumDepth - enclosingDepth - 1
        var checkpoints: [Int] = []
        var count = 0
        if try scanner.enterArray() {
            repeat {
                if count % stride == 0 { checkpoints.append(scanner.offset) }
                try scanner.skipValue(depthBudget: rowBudget)
                count += 1
            } while try scanner.nextElement()
        }
        if enclosingDepth == 0 { try expectEnd(&scanner) }
        return FileRowIndex(layout: .array(enclosingDepth: enclosingDepth), rowCount: count, checkpoints: checkpoints)
    }

    private static func lines(_ scanner: inout JSONFileScanner) throws(FileScanError) -> FileRowIndex {
        var checkpoints: [Int] = []
        var count = 0
        while let line = try scanner.nextLine(parsing: false) {
            if count % stride == 0 { checkpoints.append(line.offset) }
            count += 1
        }
        return FileRowIndex(layout: .lines, rowCount: count, checkpoints: checkpoints)
    }

    /// Only whitespace may follow the document.
    private static func expectEnd(_ scanner: inout JSONFileScanner) throws(FileScanError) {
        try scanner.skipWhitespace()
        if try scanner.peek() != nil { throw .json(at: scanner.offset, "unexpected characters after the value") }
    }

    /// Scans the container at the scanner (at `depth` containers deep) to its end and
    /// returns the offset of the value `component` names in it, as `FieldPath.resolve` picks
    /// it (the last of repeated keys; a negative index from the end), or nil. The other
    /// values are parsed strictly, so the document is checked as a whole.
    private static func locate(
        _ component: FieldPath.Component, depth: Int, in scanner: inout JSONFileScanner
    ) throws(FileScanError) -> Int? {
        let budget = JSONFileScanner.maximumDepth - depth - 1
        var found: Int?
        switch (component, try scanner.peek()) {
        case (.key(let key), UInt8(ascii: "{")):
            if try scanner.enterObject() {
                repeat {
                    let name = try scanner.memberKey()
                    if name == key {
                        found = scanner.offset
                        try scanner.skipValue(depthBudget: budget)
                    } else {
                        _ = try scanner.parseValue(depthBudget: budget)
                    }
                } while try scanner.nextMember()
            }
        case (.index(let position), UInt8(ascii: "[")):
            // From the end: the last |position| offsets, in a ring.
            var lastOffsets: [Int] = []
            let fromEnd = position < 0 ? position.magnitude : 0
            var count = 0
            if try scanner.enterArray() {
                repeat {
                    if position >= 0, count == position {
                        found = scanner.offset
                        try scanner.skipValue(depthBudget: budget)
                    } else if fromEnd > 0 {
                        if lastOffsets.count < fromEnd {
                            lastOffsets.append(scanner.offset)
                        } else {
                            lastOffsets[Int(UInt(count) % fromEnd)] = scanner.offset
                        }
                        try scanner.skipValue(depthBudget: budget)
                    } else {
                        _ = try scanner.parseValue(depthBudget: budget)
                    }
                    count += 1
                } while try scanner.nextElement()
            }
            if fromEnd > 0, UInt(count) >= fromEnd { found = lastOffsets[Int(UInt(count) % fromEnd)] }
        default:
            try scanner.skipValue(depthBudget: budget + 1)
        }
        if depth == 0 { try expectEnd(&scanner) }
        return found
    }

    private static func typeName(startingWith byte: UInt8) -> String {
        switch byte {
        case UInt8(ascii: "{"): "object"
        case UInt8(ascii: "\""): "string"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): "bool"
        case UInt8(ascii: "n"): "null"
        default: "number"
        }
    }
}

extension FileRowIndex {
    /// The rows `range` of the file (already checked against ``rowCount``), parsed strictly,
    /// and their texts; with `checkingOnly`, the rows are checked as strictly but not parsed,
    /// and only their texts are returned.
    func rows(_ range: Range<Int>, path: String, checkingOnly: Bool = false) throws(FileScanError) -> (rows: [JSONValue], texts: JSONElementTexts) {
        guard !range.isEmpty else { return ([], JSONElementTexts()) }
        var scanner = try JSONFileScanner(path: path)
        // Only the rows of the range are parsed (the ones before it are skipped), so the
        // texts are theirs.
        scanner.keptTexts = JSONElementTexts()
        scanner.checksOnly = checkingOnly
        let checkpoint = range.lowerBound / Self.stride
        try scanner.seek(to: checkpoints[checkpoint])
        var row = checkpoint * Self.stride
        var rows: [JSONValue] = []
        if !checkingOnly { rows.reserveCapacity(range.count) }
        switch layout {
        case .array(let enclosingDepth) where checkingOnly:
            let budget = JSONFileScanner.maximumDepth - enclosingDepth - 1
            while row < range.lowerBound {
                try scanner.skipValue(depthBudget: budget)
                row += 1
                if try !scanner.nextElement() { throw Self.changed(at: scanner.offset) }
            }
            // The rows are checked a run of them at a time, as the elements of one array (a
            // page's rows, a few MiB at most beside them), so pretty-printed rows are written
            // compactly as they are checked.
            scanner.beginCapture()
            while row < range.upperBound {
                try scanner.skipCapturedRow(depthBudget: budget)
                row += 1
                let last = row == range.upperBound
                let flushed = last || scanner.capturedCount >= Self.checkedRunSize
                if flushed { try scanner.checkCapturedRows() }
                if last { break }
                if try !scanner.nextElement() { throw Self.changed(at: scanner.offset) }
                if flushed { scanner.beginCapture() }
            }
        case .array(let enclosingDepth):
            let budget = JSONFileScanner.maximumDepth - enclosingDepth - 1
            while row < range.upperBound {
                if row < range.lowerBound {
                    try scanner.skipValue(depthBudget: budget)
                } else {
                    let value = try scanner.parseValue(depthBudget: budget)
                    if !checkingOnly { rows.append(value) }
                }
                row += 1
                if row < range.upperBound, try !scanner.nextElement() { throw Self.changed(at: scanner.offset) }
            }
        case .lines where checkingOnly:
            while row < range.lowerBound {
                guard try scanner.nextLine(parsing: false) != nil else { throw Self.changed(at: scanner.offset) }
                row += 1
            }
            // As an array's rows: a run of lines at a time, checked as the elements of one array.
            scanner.beginCapture()
            while row < range.upperBound {
                guard try scanner.skipCapturedLine() else { throw Self.changed(at: scanner.offset) }
                row += 1
                let last = row == range.upperBound
                if last || scanner.capturedCount >= Self.checkedRunSize {
                    try scanner.checkCapturedLines()
                    if !last { scanner.beginCapture() }
                }
            }
        case .lines:
            while row < range.upperBound {
                guard let line = try scanner.nextLine(parsing: row >= range.lowerBound) else { throw Self.changed(at: scanner.offset) }
                if let value = line.value, !checkingOnly { rows.append(value) }
                row += 1
            }
        }
        return (rows, scanner.keptTexts ?? JSONElementTexts())
    }

    /// The bytes of rows checked at once when rows are kept as texts.
    static let checkedRunSize = 4 << 20

    /// The rows are not where the scan of the whole file found them.
    private static func changed(at offset: Int) -> FileScanError {
        .json(at: offset, "the file changed while it was being read (fewer rows than its first scan found)")
    }
}
