import Synchronization
import Testing

@testable import ScreensBus
@testable import ScreensJSON

/// Page 3 of a child list: rows 30, 31 and 33 selected, row 32 failed.
private func samplePage() -> PageEvents {
    var response = ListResponse(pipeline: "p", page: 3, startRow: 30, endRow: 34, rowCount: 100, rows: 4, origin: .cache)
    response.parent = ["site": ["row": 1]]
    var page = PageEvents(response: response, parent: ["site": ["row": 1]])
    page.appendSelected(row: 30, item: ["id": 30])
    page.appendSelected(row: 31, item: ["id": 31])
    page.appendError(ListError(pipeline: "p", page: 3, row: 32, kind: "convert", message: "bad date"))
    page.appendSelected(row: 33, item: ["id": 33])
    return page
}

/// The events a per-row publisher produced for ``samplePage()`` before pages were messages.
private func sampleEvents() -> [PipelineEvent] {
    var response = ListResponse(pipeline: "p", page: 3, startRow: 30, endRow: 34, rowCount: 100, rows: 4, origin: .cache)
    response.parent = ["site": ["row": 1]]
    func selected(_ row: Int) -> PipelineEvent {
        var selected = SelectedRow(pipeline: "p", page: 3, row: row, item: ["id": .int(Int64(row))])
        selected.parent = ["site": ["row": 1]]
        return .selected(selected)
    }
    return [
        .response(response), selected(30), selected(31),
        .error(ListError(pipeline: "p", page: 3, row: 32, kind: "convert", message: "bad date")), selected(33),
    ]
}

/// Records what a delegate was called with, in order.
private final class CallLog: ListDelegate, Sendable {
    let calls = Mutex<[String]>([])
    func onListResponse(_ response: ListResponse) async { calls.withLock { $0.append("response \(response.page)") } }
    func onSelected(_ row: SelectedRow) async { calls.withLock { $0.append("selected \(row.row)") } }
    func onListError(_ error: ListError) async { calls.withLock { $0.append("error \(error.row ?? -1)") } }
    func onRunFinished(_ finished: RunFinished) async { calls.withLock { $0.append("finished") } }
}

/// A delegate that takes pages whole and counts, as the CLI's diagnostics do.
private final class PageCounter: ListDelegate, Sendable {
    let counts = Mutex<(pages: Int, selected: Int, errors: Int, rowCalls: Int)>((0, 0, 0, 0))
    func onPage(_ page: PageEvents) async {
        counts.withLock { $0.pages += 1; $0.selected += page.selectedCount; $0.errors += page.errorCount }
    }
    func onSelected(_ row: SelectedRow) async { counts.withLock { $0.rowCalls += 1 } }
}

@Suite("Page events")
struct PageEventsTests {
    @Test("rows a stage wrote as texts keep their row numbers, their texts and their order among errors")
    func thinnedRowsKeptAsTextsAreTheSameEvents() throws {
        func texts(_ rows: [String]) throws -> LazyRowValues {
            let document = Array(("[" + rows.joined(separator: ",") + "]").utf8)
            return LazyRowValues(texts: try #require(try JSONValue.parseArrayKeepingTexts(document, skippingElements: true)).texts)
        }
        var response = ListResponse(pipeline: "p", page: 3, startRow: 30, endRow: 34, rowCount: 100, rows: 4, origin: .cache)
        response.parent = ["site": ["row": 1]]
        var page = PageEvents(response: response, parent: ["site": ["row": 1]])
        page.appendSelected(rows: try texts([#"{"id":30}"#, #"{"id":31}"#]), rowNumbers: [30, 31])
        #expect(page.outcomeCount == 2 && page.selectedCount == 2)
        #expect(page.text(ofOutcome: 1).map { Array($0) } == Array(#"{"id":31}"#.utf8))
        page.appendError(ListError(pipeline: "p", page: 3, row: 32, kind: "convert", message: "bad date"))
        page.appendSelected(rows: try texts([#"{"id":33}"#]), rowNumbers: [33])
        page.appendSelected(rows: try texts([]), rowNumbers: [])
        #expect(Array(page.events) == sampleEvents())
        #expect(page.text(ofOutcome: 3).map { Array($0) } == Array(#"{"id":33}"#.utf8))

        // Rows that skip positions (a filter left some out), before any other outcome.
        var thinned = PageEvents(response: response)
        thinned.appendSelected(rows: try texts([#"{"id":31}"#, #"{"id":33}"#]), rowNumbers: [31, 33])
        #expect(thinned.outcomes == [.selected(row: 31, item: ["id": 31]), .selected(row: 33, item: ["id": 33])])
        #expect(thinned.outcome(at: 1) == .selected(row: 33, item: ["id": 33]))
    }

    @Test("a page spelled out is exactly the events a per-row publisher produced")
    func eventsMatchPerRowPublishing() {
        let page = samplePage()
        #expect(Array(page.events) == sampleEvents())
        #expect(page.selectedCount == 3 && page.errorCount == 1)
        #expect(page.errors.map(\.row) == [32])
    }

    @Test("a subscriber reading events gets the page's events between the others, in order")
    func subscriptionSpellsPagesOut() async {
        let bus = EventBus(bufferSize: 2)
        let subscription = bus.subscribe()
        let consumer = Task { await subscription.reduce(into: [PipelineEvent]()) { $0.append($1) } }
        let started = PipelineEvent.started(RunStarted(pipeline: "p", source: "s"))
        let finished = PipelineEvent.finished(RunFinished(pipeline: "p", pages: 2, rows: 8, selected: 6, errors: 2, succeeded: false))
        await bus.publish(started)
        await bus.publish(page: samplePage())
        await bus.publish(page: samplePage())
        await bus.publish(finished)
        bus.finish()
        #expect(await consumer.value == [started] + sampleEvents() + sampleEvents() + [finished])
    }

    @Test("a subscriber reading messages gets each page whole, and one consumer per subscription")
    func messagesKeepPagesWhole() async {
        let bus = EventBus(bufferSize: 16)
        let subscription = bus.subscribe()
        var messages = subscription.messages.makeAsyncIterator()
        // The messages took the subscription: an events iterator made later ends at once.
        var second = subscription.makeAsyncIterator()
        let started = PipelineEvent.started(RunStarted(pipeline: "p", source: "s"))
        await bus.publish(started)
        await bus.publish(page: samplePage())
        bus.finish()
        #expect(await second.next() == nil)
        #expect(await messages.next() == .event(started))
        #expect(await messages.next() == .page(samplePage()))
        #expect(await messages.next() == nil)
    }

    @Test("a delegate without onPage is called once per row, in order")
    func delegateDefaultSpellsOut() async {
        let bus = EventBus(bufferSize: 4)
        let log = CallLog()
        let task = bus.attach(log)
        await bus.publish(page: samplePage())
        await bus.publish(.finished(RunFinished(pipeline: "p", pages: 1, rows: 4, selected: 3, errors: 1, succeeded: false)))
        bus.finish()
        await task.value
        #expect(log.calls.withLock { $0 } == ["response 3", "selected 30", "selected 31", "error 32", "selected 33", "finished"])
    }

    @Test("a delegate with onPage counts pages without a call per row")
    func delegateTakesPagesWhole() async {
        let bus = EventBus(bufferSize: 4)
        let counter = PageCounter()
        let task = bus.attach(counter)
        for _ in 0..<5 { await bus.publish(page: samplePage()) }
        bus.finish()
        await task.value
        let counts = counter.counts.withLock { $0 }
        #expect(counts.pages == 5 && counts.selected == 15 && counts.errors == 5 && counts.rowCalls == 0)
    }
}
