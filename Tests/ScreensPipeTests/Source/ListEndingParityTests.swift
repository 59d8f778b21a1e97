@testable import ScreensPipeCore
import ScreensPipe
import ScreensBus
import Testing

/// The one ending machine of indexed lists (``IndexedListEnding``) as the run's loader and
/// the session apply it: the same pages end the same list, at the same page, with the same
/// error, whichever reads them. (The session once had its own copy of these rules, which had
/// drifted: it ignored headless `lastPage` and `on-response` rules.)
@Suite("List endings: the run and the session end a list alike")
struct ListEndingParityTests {
    static let pagination = PaginationSpec(firstPageSize: 10, pageSize: 10, prefetch: 2, maxPages: 100)

    /// A scripted server: 23 rows in pages of 10, shaped by each case.
    struct Case: Sendable, CustomStringConvertible {
        var description: String
        var answer: @Sendable (PageRequest) -> FetchedPage
        /// The pages delivered before the end, and the page of the error that ends the list, if any.
        var pages: Int
        var errorPage: Int?
    }

    static func rows(_ request: PageRequest, hideFrom: Int? = nil) -> [JSONValue] {
        let end = min(request.endRow, 23)
        guard request.startRow < end else { return [] }
        var rows = (request.startRow..<end).map { JSONValue.object(["id": .int(Int64($0))]) }
        if let hideFrom, rows.count > hideFrom { rows.removeLast(rows.count - hideFrom) }
        return rows
    }

    static let cases: [Case] = [
        Case(description: "a row count ends it past short pages", answer: { request in
            FetchedPage(request: request, rows: rows(request, hideFrom: request.index == 1 ? 4 : nil), rowCount: request.index == 0 ? 23 : nil, origin: .remote)
        }, pages: 3),
        Case(description: "without a count, the first short page ends it", answer: { request in
            FetchedPage(request: request, rows: rows(request), origin: .remote)
        }, pages: 3),
        Case(description: "a headless page count (lastPage) ends it, not a short page before it", answer: { request in
            var page = FetchedPage(request: request, rows: rows(request, hideFrom: request.index == 1 ? 4 : nil), origin: .remote)
            page.pageCount = 3
            return page
        }, pages: 3),
        Case(description: "has-more: a short page that says more rows follow goes on; false ends it", answer: { request in
            var page = FetchedPage(request: request, rows: rows(request, hideFrom: request.index == 0 ? 6 : nil), origin: .remote)
            if request.endRow < 23 { page.continuation = FetchedPage.moreRowsFollow } else { page.pageCount = request.index + 1; page.endsList = .hasMore }
            return page
        }, pages: 3),
        Case(description: "an on-response end-list rule ends it at its page", answer: { request in
            var page = FetchedPage(request: request, rows: request.index == 1 ? [] : rows(request), origin: .remote)
            if request.index == 1 { page.responseAction = PageResponseAction(action: .endList, reason: "the rule matched") }
            return page
        }, pages: 2),
        Case(description: "rows past the reported count are an error naming the page", answer: { request in
            FetchedPage(request: request, rows: rows(request), rowCount: request.index == 0 ? 15 : nil, origin: .remote)
        }, pages: 1, errorPage: 1),
        Case(description: "a has-more path no page of a longer list carried is an error once it ends", answer: { request in
            var page = FetchedPage(request: request, rows: rows(request), origin: .remote)
            page.missingContinuation = "no 'has_more' (has-more) in the body"
            return page
        }, pages: 3, errorPage: 2),
    ]

    /// The run's loader: every page answered as soon as it is launched.
    static func run(_ scripted: Case) -> (pages: Int, errorPage: Int?) {
        var state = IndexedLoadState(pagination: pagination)
        var delivered = 0
        var launched = state.pagesToLaunch()
        while !launched.isEmpty {
            for index in launched {
                state.receive(index: index, result: .success(scripted.answer(PageRequest(index: index, pagination: pagination))))
            }
            while let step = state.nextStep() {
                switch step {
                case .deliver: delivered += 1
                case .provisional: break
                case .fail(let error): return (delivered, error.page)
                case .finished: return (delivered, nil)
                }
            }
            launched = state.pagesToLaunch()
        }
        return (delivered, -1)
    }

    /// The session: `load`, then `next` until a page says it is the last or an error comes.
    static func session(_ scripted: Case) -> (pages: Int, errorPage: Int?) {
        var machine = ListSessionStateMachine(
            pipeline: "list", pagination: pagination, chaining: .indexed, requestsPageSize: true, prefetch: 2,
            rowStages: RowStages(converter: try! RowConverter(spec: nil), filter: nil))
        var shown = 0
        var pending: [ListSessionStateMachine.Action] = machine.receive(SessionRequest(.load))
        for _ in 0..<20 {
            var last = false
            var errorPage: Int?
            while !pending.isEmpty {
                let action = pending.removeFirst()
                switch action {
                case .fetch(let ticket): pending += machine.fetched(ticket, .success(scripted.answer(ticket.request)))
                case .emit(let events):
                    for event in events {
                        let envelope = event.envelope
                        if event.name == "response" {
                            shown += 1
                            if envelope["last"] == true { last = true }
                        }
                        if event.name == "error" { errorPage = envelope["page"]?.int64Value.map { Int($0) } ?? -1 }
                    }
                default: break
                }
            }
            if let errorPage { return (shown, errorPage) }
            if last { return (shown, nil) }
            pending = machine.receive(SessionRequest(.next))
        }
        return (shown, -1)
    }

    @Test("each case ends where it should, in a run and in a session", arguments: cases)
    func parity(_ scripted: Case) {
        let run = Self.run(scripted)
        #expect(run.pages == scripted.pages && run.errorPage == scripted.errorPage, "run: \(run)")
        let session = Self.session(scripted)
        #expect(session.pages == scripted.pages && session.errorPage == scripted.errorPage, "session: \(session)")
    }
}
