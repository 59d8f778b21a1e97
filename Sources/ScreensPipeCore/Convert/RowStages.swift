import ScreensBus

/// The convert and filter stages of a pipeline, applied to one row at a time: by a run to
/// each page it delivers, by a session to each page it shows.
struct RowStages: Sendable {
    var converter: RowConverter
    var filter: RowFilter?
    var skipsInvalidRows: Bool
    /// An incremental run's cursor: rows at or before it are left out like filtered ones.
    var cursor: CursorGate?

    /// Whether every row comes out as it went in and none is read: no convert, no filter,
    /// no incremental cursor. A page's rows then pass without being parsed.
    var changesNoRow: Bool { converter.isIdentity && filter == nil && cursor == nil }

    /// What the stages make of one raw row.
    enum Outcome {
        /// The row converted and passed the filter.
        case passed(JSONValue)
        /// The row converted and the filter left it out, or it is behind the incremental cursor.
        case filteredOut
        /// The row did not convert and `on-invalid: skip` leaves it out.
        case skipped
        /// The row failed to convert or to filter: an error naming its page and row.
        case failed(ScreensPipeError)

        /// The outcome without the converted row: what a run counts.
        var verdict: Verdict {
            switch self {
            case .passed: .passed
            case .filteredOut: .filteredOut
            case .skipped: .skipped
            case .failed(let error): .failed(error)
            }
        }
    }

    /// What became of one row, as a run counts it (``Outcome`` without the row's value; the
    /// stages over rows kept as texts keep the selected row's text instead).
    enum Verdict {
        case passed
        case filteredOut
        case skipped
        case failed(ScreensPipeError)
    }

    init(converter: RowConverter, filter: RowFilter? = nil, skipsInvalidRows: Bool = false) {
        self.converter = converter
        self.filter = filter
        self.skipsInvalidRows = skipsInvalidRows
    }

    init(_ stages: Pipeline.Stages) {
        self.init(converter: stages.converter, filter: stages.filter, skipsInvalidRows: stages.skipsInvalidRows)
        cursor = stages.incremental?.gate
    }

    /// Converts and filters row `row` (its index in the list) of page `page`. A row that
    /// fails is an error for that row, not for the page.
    func process(_ raw: JSONValue, row: Int, page: Int, adding extra: (key: String, value: JSONValue)? = nil) -> Outcome {
        do throws(ScreensPipeError) {
            // A raw-row cursor is checked first, so rows behind it cost no conversion.
            if let cursor, cursor.spec.row == .raw, try !cursor.admits(raw: raw, item: nil) { return .filteredOut }
            var item = try converter.convert(raw, row: row, page: page)
            if let cursor, cursor.spec.row == .converted, try !cursor.admits(raw: raw, item: item) { return .filteredOut }
            // Added after conversion, which keeps only the fields it maps, and before the
            // filter, which may select on them.
            if let extra, case .object(var object) = item {
                object[extra.key] = extra.value
                item = .object(object)
            }
            if let filter, try !filter.matches(item) { return .filteredOut }
            return .passed(item)
        } catch {
            switch verdict(on: error, row: row, page: page) {
            case .failed(let located): return .failed(located)
            default: return .skipped
            }
        }
    }

    /// What a row that raised `error` becomes: skipped when it did not convert and
    /// `on-invalid: skip` is set, otherwise failed with its page and row named.
    func verdict(on error: ScreensPipeError, row: Int, page: Int) -> Verdict {
        if error.code == .conversion, skipsInvalidRows { return .skipped }
        var located = error
        located.page = located.page ?? page
        located.row = located.row ?? row
        return .failed(located)
    }
}
