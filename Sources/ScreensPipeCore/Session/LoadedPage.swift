import ScreensBus

/// A page of a session, converted and filtered once, kept so that it can be shown again
/// and its rows selected without asking the source again.
struct LoadedPage: Sendable {
    /// The page as fetched: what an edit moves rows across (ListEdit.swift).
    var page: FetchedPage
    /// The page's `response` event.
    var response: ListResponse
    /// What follows the response, in list order: a `row` for each row that converted and
    /// passed the filter, an `error` for each row that failed.
    var rowEvents: [SessionEvent.Kind]
    /// The position in ``rowEvents`` of each shown row, by its index in the whole list.
    var positionByRow: [Int: Int]
    /// Rows that did not convert and were left out (`on-invalid: skip`).
    var skipped: Int

    /// Converts and filters every row of `page`, exactly as a run delivers a page: a row that
    /// fails is an `error` for that row, not for the page.
    init(_ page: FetchedPage, stages: RowStages, pipeline: String) {
        self.page = page
        response = Pipeline.response(for: page, pipeline: pipeline)
        rowEvents = []
        rowEvents.reserveCapacity(page.rowsInPage)
        positionByRow = [:]
        skipped = 0
        let index = page.request.index
        for (offset, raw) in page.rows.enumerated() {
            let rowNumber = page.request.startRow + offset
            switch stages.process(raw, row: rowNumber, page: index) {
            case .passed(let item):
                positionByRow[rowNumber] = rowEvents.count
                rowEvents.append(.row(SelectedRow(pipeline: pipeline, page: index, row: rowNumber, item: item)))
            case .filteredOut:
                continue
            case .skipped:
                skipped += 1
            case .failed(let located):
                rowEvents.append(.pipeline(.error(located.event(pipeline: pipeline))))
            }
        }
    }

    /// The row with index `row` in the whole list, when this page showed it.
    func row(_ row: Int) -> SelectedRow? {
        guard let position = positionByRow[row], case .row(let selected) = rowEvents[position] else { return nil }
        return selected
    }

    /// Row errors among ``rowEvents``.
    var errorCount: Int { rowEvents.count - positionByRow.count }
}
