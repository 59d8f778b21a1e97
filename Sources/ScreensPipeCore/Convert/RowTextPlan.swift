import ScreensBus

/// The convert and filter stages planned for rows kept as texts: each selected row's text is
/// written straight from the row's text, and no tree of the row is built.
///
/// A run reads a page's rows as texts (``JSONElementTexts``) when every field it converts is
/// one member of the row (`entryId`, not `author.email`), or when it only filters. The members
/// the stages read (``selection``) are found by the source as it checks the rows
/// (``JSONMemberTape``), or else by the reader with the same parser code, a batch of rows at a
/// time; either way a key that repeats the row before's at its place is compared, not looked up. Each
/// output field is then written from the member's text: a plain string, an integer or a
/// boolean is copied, an epoch date is written as ISO 8601 digit by digit. Anything else (an
/// escaped string, a decimal, a default, a missing required field, a localized value) is
/// parsed and handed to the same ``CompiledField`` the tree path uses, so both paths write the
/// same bytes and raise the same errors. The filter reads an object holding only the members
/// it names, which selects exactly what the whole row would; a filter whose conditions
/// compare strings, integers, booleans and nulls decides from those members' texts
/// (``MemberTextPredicate``) and reads values only for a row it cannot decide so.
struct RowTextPlan: Sendable {
    /// What a selected row is written as.
    enum Output: Sendable {
        /// The row's text as received (no convert: a filter only).
        case asReceived
        /// The fields of a model or a `fields:` mapping, in order.
        case fields
    }

    /// How a field's member text can be written without parsing it.
    enum FastForm: Sendable {
        /// Untyped: a plain string, a boolean or an integer is copied.
        case asFound
        /// `string`: a plain string is copied.
        case string
        /// `int` or `number`: an integer is copied.
        case integer
        /// `bool`: a boolean is copied.
        case boolean
        /// `date`: an integer (epoch milliseconds) is written as ISO 8601.
        case date
        /// Localized: always through ``CompiledField``.
        case never
    }

    /// One output field, as the per-row loop reads it: plain values only, so stepping
    /// through the fields copies no reference (the field itself is `fields[index]`).
    struct FieldStep: Sendable {
        /// The member's slot in a row's found members.
        let slot: Int
        let form: FastForm
        /// Where `"name":` is in ``RowTextPlan/names``.
        let name: Range<Int>
        /// The field's slot among the members ``RowTextPlan/textFilter`` reads, if the filter
        /// reads it.
        let filterSlot: Int?
        /// Whether the filter reads this field (it is kept as a value too).
        var feedsFilter: Bool { filterSlot != nil }
        /// Whether `"name":` is how the row's compact text has the member's key: a value copied
        /// as it is goes out with its key in one piece.
        let nameIsKey: Bool
    }

    let output: Output
    /// The keys of the members the stages read, each to its slot: what a source finds in
    /// each row as it checks the rows.
    let selection: JSONMemberSelection
    /// For ``Output/asReceived``: each slot's key, the member the filter reads.
    let filterKeys: [String]
    /// For ``Output/fields``: the fields, their steps, and each one's `"name":` as compact JSON.
    let fields: [CompiledField]
    let steps: [FieldStep]
    let names: [UInt8]
    /// The filter decided on its members' texts: for ``Output/asReceived`` the members in
    /// ``selection``'s slots, for ``Output/fields`` the written fields in their
    /// ``FieldStep/filterSlot``s (``filterSlotCount`` of them). Nil without a filter, or for
    /// one that needs values.
    let textFilter: MemberTextPredicate?
    let filterSlotCount: Int

    /// A plan for `converter` and `filter`, or nil when the rows must be read as trees: a
    /// field reads a longer path, the model is a DDL record's, or nothing reads the rows.
    init?(converter: RowConverter, filter: RowFilter?) {
        let filterReads = filter?.readKeys ?? []
        if converter.isIdentity {
            guard filter != nil else { return nil }
            filterKeys = filterReads.sorted()
            selection = JSONMemberSelection(slots: Dictionary(uniqueKeysWithValues: filterKeys.enumerated().map { (Array($1.utf8), $0) }))
            output = .asReceived
            (fields, steps, names) = ([], [], [])
            textFilter = filter?.textPredicate(slots: Dictionary(uniqueKeysWithValues: filterKeys.enumerated().map { ($1, $0) }))
            filterSlotCount = filterKeys.count
            return
        }
        guard let model = converter.memberModel else { return nil }
        var slots: [[UInt8]: Int] = [:]
        var steps: [FieldStep] = []
        var names = JSONWriter()
        // Each output field the filter reads, to its slot (a converter's field names are
        // unique: it refuses a name mapped twice).
        var filterSlots: [String: Int] = [:]
        for field in model.fields {
            // A member model's fields each have one key; unwrapped, not decided, here.
            guard let key = field.singleKey.map({ Array($0.utf8) }) else { return nil }
            let slot = slots[key] ?? slots.count
            slots[key] = slot
            let nameStart = names.bytes.count
            names.writeString(field.name)
            names.writeRaw(":")
            let form: FastForm =
                if field.localized { .never } else {
                    switch field.type {
                    case nil: .asFound
                    case .string?: .string
                    case .int?, .number?: .integer
                    case .bool?: .boolean
                    case .date?: .date
                    }
                }
            let nameIsKey = names.bytes[nameStart...].elementsEqual([CompactJSON.quote] + key + [CompactJSON.quote, UInt8(ascii: ":")])
            var filterSlot: Int?
            if filterReads.contains(field.name) {
                filterSlot = filterSlots.count
                filterSlots[field.name] = filterSlot
            }
            steps.append(
                FieldStep(slot: slot, form: form, name: nameStart..<names.bytes.count, filterSlot: filterSlot, nameIsKey: nameIsKey))
        }
        // A key the filter reads that no field writes is a missing member: a slot never filled.
        for key in filterReads.sorted() where filterSlots[key] == nil { filterSlots[key] = filterSlots.count }
        textFilter = filter?.textPredicate(slots: filterSlots)
        filterSlotCount = filterSlots.count
        selection = JSONMemberSelection(slots: slots)
        self.fields = model.fields
        self.steps = steps
        self.names = names.bytes
        filterKeys = []
        output = .fields
    }
}

/// Converts and filters the rows of one page from their texts (see ``RowTextPlan``), and
/// collects the selected rows' texts for the page's events.
struct RowTextReader {
    let plan: RowTextPlan
    /// The stages the plan was made for: their filter and locale, and the tree path for a row
    /// the plan cannot read (one that is not an object, or has a key with an escape in it).
    let stages: RowStages
    /// The page's rows.
    let rows: JSONElementTexts
    /// Where the members the plan reads are in the rows at ``tapeRows``: the source's tape of
    /// the whole page when it found them for this plan as it checked the rows, else found
    /// here, ``rowsPerTape`` rows at a time, the same way (``JSONMemberTape``).
    private var tape: [Int] = []
    private var tapeRows = 0..<0
    private let tapeStride: Int
    private static let rowsPerTape = 256

    /// Selected rows so far: their compact texts, and their positions in the list.
    private var text: [UInt8] = []
    private var ranges: [Range<Int>] = []
    private var rowNumbers: [Int] = []
    /// Each slot's member in the current row; nil when the row has none.
    private var found: [Range<Int>?]
    /// The members the filter reads, refilled for each row: its storage is allocated once.
    private var filterMembers = JSONObject()
    /// The current row's fields as they are written, copied to ``text`` when it is selected.
    private var row = OutputBytes(capacity: 4096)
    /// Writes the rows' dates, keeping the last one's day.
    private var dates = ISODate.Writer()
    /// For ``RowTextPlan/textFilter`` on written fields: where each one it reads is in
    /// ``row``.
    private var filterRanges: [Range<Int>?]

    init(plan: RowTextPlan, stages: RowStages, rows: JSONElementTexts) {
        self.plan = plan
        self.stages = stages
        self.rows = rows
        if let tape = rows.memberTape, tape.selection == plan.selection {
            self.tape = tape.entries
            tapeRows = 0..<rows.count
        }
        tapeStride = 1 + 2 * plan.selection.count
        found = Array(repeating: nil, count: plan.selection.count)
        filterRanges = Array(repeating: nil, count: plan.filterSlotCount)
        ranges.reserveCapacity(rows.count)
        rowNumbers.reserveCapacity(rows.count)
    }

    /// Hands the selected rows collected so far to `events`, and starts again empty.
    mutating func flush(into events: inout PageEvents) {
        guard !ranges.isEmpty else { return }
        events.appendSelected(rows: LazyRowValues(texts: JSONElementTexts(compactText: text, ranges: ranges)), rowNumbers: rowNumbers)
        text = []
        ranges = []
        rowNumbers = []
    }

    /// Converts and filters the page's row at `offset` (row `rowNumber` of the list, on page
    /// `page`); a selected row's text is kept for ``flush(into:)``.
    mutating func process(rowAt offset: Int, row rowNumber: Int, page: Int) -> RowStages.Verdict {
        let row = rows[offset] ?? []
        if !tapeRows.contains(offset) {
            tapeRows = offset..<min(offset + Self.rowsPerTape, rows.count)
            tape = rows.memberTape(finding: plan.selection, elements: tapeRows).entries
        }
        // A local copy: reading the stored array while `read` mutates the reader would overlap.
        let tape = tape
        let entry = (offset &- tapeRows.lowerBound) &* tapeStride
        let start = text.count
        let result = row.withUnsafeBufferPointer { bytes in
            Result { () throws(ScreensPipeError) -> Bool? in
                takeMembers(bytes, from: tape, at: entry) ? try read(bytes) : nil
            }
        }
        do throws(ScreensPipeError) {
            guard let selected = try result.get() else {
                text.removeSubrange(start...)
                return readAsTree(row, row: rowNumber, page: page)
            }
            guard selected else {
                text.removeSubrange(start...)
                return .filteredOut
            }
            ranges.append(start..<text.count)
            rowNumbers.append(rowNumber)
            return .passed
        } catch {
            text.removeSubrange(start...)
            return stages.verdict(on: error, row: rowNumber, page: page)
        }
    }

    /// Reads one row's text, its members found: whether it is selected (its output text
    /// appended), or nil when the plan cannot read it.
    private mutating func read(_ bytes: UnsafeBufferPointer<UInt8>) throws(ScreensPipeError) -> Bool? {
        switch plan.output {
        case .asReceived:
            if let filter = stages.filter {
                let decided = plan.textFilter.flatMap { textFilter in
                    found.withUnsafeBufferPointer { textFilter(MemberTexts(bytes: bytes, ranges: $0)) }
                }
                if let decided {
                    guard decided else { return false }
                } else {
                    filterMembers.removeAll(keepingCapacity: true)
                    for (slot, key) in plan.filterKeys.enumerated() {
                        guard let range = found[slot] else { continue }
                        guard let value = CompactJSON.value(bytes, range) else { return nil }
                        filterMembers.appendUnchecked(key: key, value: value)
                    }
                    guard try filter.matches(.object(filterMembers)) else { return false }
                }
            }
            text.append(contentsOf: bytes)
            return true
        case .fields:
            if let textFilter = plan.textFilter {
                // The fields are written once; the filter reads them as written. A row it
                // cannot decide so is written again, its values kept for the filter.
                guard try writeFields(bytes, keepingValues: false) else { return nil }
                let output = row.bytes
                let decided = filterRanges.withUnsafeBufferPointer { textFilter(MemberTexts(bytes: output, ranges: $0)) }
                if let decided {
                    if decided { text.append(contentsOf: output) }
                    return decided
                }
            }
            guard try writeFields(bytes, keepingValues: true) else { return nil }
            if let filter = stages.filter, try !filter.matches(.object(filterMembers)) { return false }
            text.append(contentsOf: row.bytes)
            return true
        }
    }

    /// Writes the row's fields as one object into ``row``; false when a member's text did not
    /// parse.
    /// `keepingValues`: the values the filter reads are kept in ``filterMembers``; else where
    /// they were written is kept in ``filterRanges``.
    private mutating func writeFields(_ bytes: UnsafeBufferPointer<UInt8>, keepingValues: Bool) throws(ScreensPipeError) -> Bool {
        if keepingValues { filterMembers.removeAll(keepingCapacity: true) }
        row.truncate(to: 0)
        row.append(CompactJSON.openBrace)
        var first = true
        for index in plan.steps.indices {
            let step = plan.steps[index]
            let memberStart = row.count
            if !first { row.append(CompactJSON.comma) }
            // The value follows the field's `"name":` (or the key it is copied with, as long).
            let valueStart = row.count &+ step.name.count
            switch try write(step, field: index, found[step.slot], in: bytes, wantsValue: keepingValues && step.feedsFilter) {
            case .written(let value):
                if keepingValues {
                    if step.feedsFilter, let value { filterMembers.appendUnchecked(key: plan.fields[index].name, value: value) }
                } else if let slot = step.filterSlot {
                    filterRanges[slot] = valueStart..<row.count
                }
                first = false
            case .left:
                row.truncate(to: memberStart)
                if !keepingValues, let slot = step.filterSlot { filterRanges[slot] = nil }
            case .unreadable:
                return false
            }
        }
        row.append(CompactJSON.closeBrace)
        return true
    }

    /// What became of one output field.
    private enum FieldWrite {
        /// The value was written; it is given when the filter reads the field.
        case written(JSONValue?)
        /// The field is left out of the row (a missing "if present" field).
        case left
        /// The member's text did not parse: the row goes the tree path.
        case unreadable
    }

    /// Appends field `step`'s `"name":`.
    @inline(__always)
    private mutating func writeName(of step: RowTextPlan.FieldStep) {
        // Through a pointer: appending the slice retains and releases the names per field.
        plan.names.withUnsafeBufferPointer { names in row.append(UnsafeBufferPointer(rebasing: names[step.name])) }
    }

    /// Appends field `step`'s `"name":` and the member text at `range` as it is.
    @inline(__always)
    private mutating func writeCopy(of step: RowTextPlan.FieldStep, _ range: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>) {
        // The member's key is just before its value in the compact text: `"key":` and the value
        // in one piece when the name is the key.
        let keyStart = range.lowerBound &- step.name.count
        if step.nameIsKey, keyStart >= 0, bytes[keyStart] == CompactJSON.quote {
            row.append(UnsafeBufferPointer(rebasing: bytes[keyStart..<range.upperBound]))
        } else {
            writeName(of: step)
            row.append(UnsafeBufferPointer(rebasing: bytes[range]))
        }
    }

    /// Writes field `index` (its step `step`), `"name":` and the value read from the member
    /// at `range` (nil: missing); the value is given when `wantsValue` (or made anyway).
    private mutating func write(
        _ step: RowTextPlan.FieldStep, field index: Int, _ range: Range<Int>?, in bytes: UnsafeBufferPointer<UInt8>, wantsValue: Bool
    ) throws(ScreensPipeError) -> FieldWrite {
        if let range, step.form != .never, let literal = CompactJSON.literal(bytes, range) {
            switch (step.form, literal) {
            case (.asFound, .plainString), (.string, .plainString):
                writeCopy(of: step, range, in: bytes)
                return .written(wantsValue ? .string(CompactJSON.plainString(bytes, range)) : nil)
            case (.asFound, .boolean(let flag)), (.boolean, .boolean(let flag)):
                writeCopy(of: step, range, in: bytes)
                return .written(wantsValue ? .bool(flag) : nil)
            case (.asFound, .integer(let integer)), (.integer, .integer(let integer)):
                writeCopy(of: step, range, in: bytes)
                return .written(wantsValue ? .int(integer) : nil)
            case (.date, .integer(let milliseconds)):
                writeName(of: step)
                row.append(CompactJSON.quote)
                let dateStart = row.count
                row.reserve(ISODate.Writer.longest)
                if let written = dates.write(epochMilliseconds: milliseconds, to: row.base + row.count) {
                    row.advance(by: written)
                } else {
                    row.append(contentsOf: ISODate.format(epochMilliseconds: milliseconds).utf8)
                }
                let value: JSONValue? = wantsValue ? .string(String(decoding: UnsafeBufferPointer(rebasing: row.bytes[dateStart...]), as: UTF8.self)) : nil
                row.append(CompactJSON.quote)
                return .written(value)
            default:
                break
            }
        }
        // Every other case (null and missing included), exactly as the tree path does it.
        writeName(of: step)
        var found: JSONValue?
        if let range {
            guard let value = CompactJSON.value(bytes, range) else { return .unreadable }
            found = value
        }
        var output = JSONObject(minimumCapacity: 1)
        try plan.fields[index].apply(found: found, locale: stages.converter.locale, into: &output)
        guard let value = output.values.first else { return .left }
        var writer = JSONWriter()
        writer.write(value)
        row.append(contentsOf: writer.bytes)
        return .written(value)
    }
    /// Takes the members the plan reads from where they were found (the row's entries in
    /// `tape` start at `entry`); false when the row is not an object or a key holds an escape:
    /// the tree path reads those rows.
    private mutating func takeMembers(_ bytes: UnsafeBufferPointer<UInt8>, from tape: [Int], at entry: Int) -> Bool {
        guard tape[entry] == JSONMemberTape.Status.object.rawValue, bytes.count >= 2, bytes[0] == CompactJSON.openBrace else { return false }
        var offsets = entry &+ 1
        for slot in found.indices {
            let (start, end) = (tape[offsets], tape[offsets &+ 1])
            offsets &+= 2
            guard start >= 0 else {
                found[slot] = nil
                continue
            }
            // Offsets the source recorded for this very text; checked anyway, since the
            // buffer's reads are not.
            guard start < end, end < bytes.count else { return false }
            found[slot] = start..<end
        }
        return true
    }

    /// A row the plan cannot read, through the tree path; a selected row is written as its
    /// text when nothing converts it, else as ``JSONWriter`` writes its converted value.
    private mutating func readAsTree(_ row: ArraySlice<UInt8>, row rowNumber: Int, page: Int) -> RowStages.Verdict {
        let raw: JSONValue
        do {
            raw = try JSONValue(parsing: Array(row))
        } catch {
            // Kept texts were checked when they arrived; one that does not parse is a defect,
            // reported for its row rather than trapping.
            return .failed(ScreensPipeError(.malformedResponse, "the kept text of the row does not parse again: \(error)", page: page, row: rowNumber))
        }
        let outcome = stages.process(raw, row: rowNumber, page: page)
        if case .passed(let item) = outcome {
            let start = text.count
            switch plan.output {
            case .asReceived:
                text.append(contentsOf: row)
            case .fields:
                var writer = JSONWriter()
                writer.write(item)
                text.append(contentsOf: writer.bytes)
            }
            ranges.append(start..<text.count)
            rowNumbers.append(rowNumber)
        }
        return outcome.verdict
    }
}
