/// One delivered page as a single bus message: its `response`, then what became of its rows
/// (selected, or failed), in row order.
///
/// The bus carries a page as one value rather than one event per row, so a subscriber that
/// only counts (a progress line, diagnostics) reads ``selectedCount`` and ``errorCount`` and
/// never touches a row, and queueing a page costs one step whatever its size. A subscriber
/// that wants rows one at a time reads ``events``: the `response`, `selected` and `error`
/// events the page stands for, in the order and with the values a per-row publisher would
/// have produced. ``EventSubscription`` does that for every existing subscriber.
public struct PageEvents: Sendable, Hashable {
    /// What became of one row of the page that produced an event.
    public enum RowOutcome: Sendable, Hashable {
        /// The row (its index in the whole list) passed the filter; `item` is the converted row.
        case selected(row: Int, item: JSONValue)
        /// The row, or the page, failed: an `error` event.
        case error(ListError)
    }

    /// The page's `response` event.
    public var response: ListResponse
    /// The rows that produced an event, in row order. For rows kept as texts
    /// (``appendSelected(rows:firstRow:count:)``), reading this parses them (once for every
    /// copy of the page); ``outcomeCount`` and ``outcome(at:)`` read one at a time.
    public var outcomes: [RowOutcome] {
        guard let passed else { return storedOutcomes }
        let values = passed.rows.rows
        return (0..<passed.count).map { .selected(row: passed.rowNumber($0), item: values[$0]) }
    }
    private var storedOutcomes: [RowOutcome]
    /// Selected rows kept as texts, before any other outcome: the page of a run whose stages
    /// change no row, or write each selected row's text themselves.
    private var passed: PassedRows?

    /// Rows kept as texts and the list positions they stand for.
    private struct PassedRows: Sendable {
        var rows: LazyRowValues
        var count: Int
        /// The list position of row 0; the others follow it, unless `rowNumbers` is set.
        var firstRow: Int
        /// Each row's position in the list, for rows a filter thinned out.
        var rowNumbers: [Int]?

        func rowNumber(_ position: Int) -> Int { rowNumbers?[position] ?? firstRow + position }
    }
    /// How many of ``outcomes`` are selected rows.
    public private(set) var selectedCount = 0
    /// How many of ``outcomes`` are errors.
    public private(set) var errorCount = 0
    /// The parent rows of a child list of a `for-each` source, written into every
    /// `selected` event of the page; nil otherwise.
    public var parent: JSONValue?

    /// Starts a page with its `response`; add its rows with ``appendSelected(row:item:)``
    /// and ``appendError(_:)`` in row order.
    public init(response: ListResponse, parent: JSONValue? = nil, reservingCapacity capacity: Int = 0) {
        self.response = response
        self.parent = parent
        storedOutcomes = []
        storedOutcomes.reserveCapacity(capacity)
    }

    /// For each outcome, the text of its selected item, when it was kept; empty while none were.
    private var texts: [ArraySlice<UInt8>?] = []

    /// Row `row` of the list passed the filter as `item`. `text`, when given, must be
    /// compact JSON (no line break) that reads back as `item`: the text a row nothing
    /// changed was received or stored as (``JSONElementTexts``). A sink writes it instead of
    /// encoding `item` again, so the row passes through with its number texts and member
    /// order as received.
    public mutating func appendSelected(row: Int, item: JSONValue, text: ArraySlice<UInt8>? = nil) {
        materializePassedRows()
        if let text {
            if texts.count < storedOutcomes.count { texts.append(contentsOf: repeatElement(nil, count: storedOutcomes.count - texts.count)) }
            texts.append(text)
        }
        storedOutcomes.append(.selected(row: row, item: item))
        selectedCount += 1
    }

    /// The first `count` of `rows` passed the filter unchanged, as rows `firstRow...` of the
    /// list: the page of a run whose stages change no row. Their values are parsed only if a
    /// subscriber reads ``outcomes``, ``outcome(at:)`` or ``events``; a sink writes
    /// ``text(ofOutcome:)``. Appending to a page that already has outcomes parses them.
    public mutating func appendSelected(rows: LazyRowValues, firstRow: Int, count: Int) {
        precondition(count >= 0 && count <= rows.count, "count \(count) is not within the \(rows.count) rows")
        append(PassedRows(rows: rows, count: count, firstRow: firstRow))
    }

    /// `rows` passed the filter as the rows of the list at `rowNumbers` (one per row, rising):
    /// rows a stage converted and wrote as compact JSON itself. As with
    /// ``appendSelected(rows:firstRow:count:)``, their values are parsed only if a subscriber
    /// reads them, and a sink writes ``text(ofOutcome:)``.
    public mutating func appendSelected(rows: LazyRowValues, rowNumbers: [Int]) {
        precondition(rowNumbers.count == rows.count, "\(rowNumbers.count) row numbers for \(rows.count) rows")
        append(PassedRows(rows: rows, count: rows.count, firstRow: rowNumbers.first ?? 0, rowNumbers: rowNumbers))
    }

    private mutating func append(_ rows: PassedRows) {
        guard rows.count > 0 else { return }
        if storedOutcomes.isEmpty, passed == nil {
            passed = rows
            selectedCount += rows.count
            return
        }
        for position in 0..<rows.count {
            appendSelected(row: rows.rowNumber(position), item: rows.rows.row(at: position), text: rows.rows.texts[position])
        }
    }

    /// Turns rows kept as texts into stored outcomes, before another outcome is added.
    private mutating func materializePassedRows() {
        guard let passed else { return }
        self.passed = nil
        let values = passed.rows.rows
        for position in 0..<passed.count {
            storedOutcomes.append(.selected(row: passed.rowNumber(position), item: values[position]))
            texts.append(passed.rows.texts[position])
        }
    }

    /// A row (or the page) failed.
    public mutating func appendError(_ error: ListError) {
        materializePassedRows()
        storedOutcomes.append(.error(error))
        errorCount += 1
    }

    /// How many outcomes the page has; never parses rows kept as texts.
    public var outcomeCount: Int { passed?.count ?? storedOutcomes.count }

    /// Outcome `index` (for rows kept as texts, the row is parsed once for every copy).
    public func outcome(at index: Int) -> RowOutcome {
        guard let passed else { return storedOutcomes[index] }
        return .selected(row: passed.rowNumber(index), item: passed.rows.row(at: index))
    }

    /// Whether outcome `index` is a selected row; never parses.
    public func isSelected(_ index: Int) -> Bool {
        guard passed == nil else { return true }
        if case .selected = storedOutcomes[index] { return true }
        return false
    }

    /// When every outcome of the page is a selected row kept as text (the page of a run whose
    /// stages change no row, or write each selected row's text themselves), calls `body` with
    /// the buffer the texts share and each row's range in it, in order, and returns what it
    /// returns; nil for any other page, whose outcomes are read one by one.
    package func withSelectedTexts<Result, Failure: Error>(
        _ body: (UnsafeBufferPointer<UInt8>, ArraySlice<Range<Int>>) throws(Failure) -> Result
    ) throws(Failure) -> Result? {
        guard let passed else { return nil }
        return try passed.rows.texts.withTexts(count: passed.count, body)
    }

    /// The compact JSON of the item of outcome `index` (a selected row), when the page
    /// kept it: the row's text as received, which reads back as the item.
    public func text(ofOutcome index: Int) -> ArraySlice<UInt8>? {
        if let passed { return passed.rows.texts[index] }
        return index < texts.count ? texts[index] : nil
    }

    public static func == (lhs: PageEvents, rhs: PageEvents) -> Bool {
        lhs.response == rhs.response && lhs.parent == rhs.parent && lhs.selectedCount == rhs.selectedCount
            && lhs.errorCount == rhs.errorCount && lhs.outcomes == rhs.outcomes
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(response)
        hasher.combine(outcomeCount)
        hasher.combine(selectedCount)
    }

    /// The errors of the page, in row order (none are looked for when ``errorCount`` is 0).
    public var errors: [ListError] {
        guard errorCount > 0 else { return [] }
        return storedOutcomes.compactMap { if case .error(let error) = $0 { error } else { nil } }
    }

    /// The page as the events it stands for: `response`, then one `selected` or `error`
    /// event per outcome. Each event is made when it is read.
    public var events: Events { Events(page: self) }

    /// The events of a page, made on demand from its outcomes.
    public struct Events: RandomAccessCollection, Sendable {
        let page: PageEvents

        /// The `response` event.
        public var startIndex: Int { 0 }
        /// One past the last outcome's event.
        public var endIndex: Int { page.outcomeCount + 1 }

        /// Event 0 is the `response`; event `i` is outcome `i - 1`.
        public subscript(position: Int) -> PipelineEvent {
            if position == 0 { return .response(page.response) }
            switch page.outcome(at: position - 1) {
            case .selected(let row, let item):
                var selected = SelectedRow(pipeline: page.response.pipeline, page: page.response.page, row: row, item: item)
                selected.parent = page.parent
                return .selected(selected)
            case .error(let error):
                return .error(error)
            }
        }
    }
}

/// One message of the bus: a single event, or a whole page.
///
/// Read messages with ``EventSubscription/messages`` to handle a page at once; the events
/// of a subscription are the same messages, with every page spelled out as its events.
public enum BusMessage: Sendable, Hashable {
    /// One event.
    case event(PipelineEvent)
    /// A page and what became of its rows.
    case page(PageEvents)

    /// How many events the message stands for: what it takes of a subscriber's buffer.
    var weight: Int {
        switch self {
        case .event: 1
        case .page(let page): page.outcomeCount + 1
        }
    }
}
