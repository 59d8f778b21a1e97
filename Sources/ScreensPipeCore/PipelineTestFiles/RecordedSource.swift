import ScreensBus

/// The source of a test case with recorded input: serves a whole list by row range (as the
/// file source does) or recorded pages as they were recorded, so the cache, convert, filter
/// and sink stages under test run on exactly the data the test file holds.
struct RecordedSource: PageFetcher {
    enum Recording: Sendable {
        case rows([JSONValue])
        case pages([[JSONValue]], count: Int?)
    }

    let recording: Recording
    let caseName: String

    /// The source for `input`; nil for a sandbox case, which keeps the pipeline's own source.
    init?(_ input: PipelineTestInput, caseName: String) {
        switch input {
        case .rows(let rows): recording = .rows(rows)
        case .pages(let pages, let count): recording = .pages(pages, count: count)
        case .sandbox: return nil
        }
        self.caseName = caseName
    }

    var identity: String { "recorded \(caseName)" }

    var summary: String {
        switch recording {
        case .rows(let rows): "recorded rows (\(rows.count))"
        case .pages(let pages, _): "recorded pages (\(pages.count))"
        }
    }

    func fetch(_ request: PageRequest, provisional: @Sendable (FetchedPage) async -> Void) async throws(ScreensPipeError) -> FetchedPage {
        switch recording {
        case .rows(let rows):
            return FetchedPage(serving: rows, for: request)
        case .pages(let pages, let count):
            guard request.index < pages.count else {
                throw ScreensPipeError(
                    .io, "the test recorded \(pages.count) page\(pages.count == 1 ? "" : "s"); the pipeline asked for page \(request.index)",
                    page: request.index)
            }
            return FetchedPage(
                request: request, rows: pages[request.index],
                rowCount: request.includesRowCount ? count : nil, origin: .remote)
        }
    }

    func plan(_ request: PageRequest) -> [PlannedRequest] {
        [PlannedRequest(page: request.index, method: "RECORDED", url: "rows \(request.startRow)..<\(request.endRow)")]
    }
}
