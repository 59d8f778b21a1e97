@testable import ScreensPipeCore
import ScreensPipe
import ScreensBus
import Testing

/// The session's rules, one input at a time, with no concurrency: which pages are fetched,
/// what each arrival means, and which events answer each command.
@Suite("session: the state machine")
struct ListSessionStateMachineTests {
    typealias Machine = ListSessionStateMachine

    /// 23 rows: page 0 holds 10, page 1 and 2 hold 10 and 3 (first-page-size 10, page-size 10).
    static let pagination = PaginationSpec(firstPageSize: 10, pageSize: 10, prefetch: 4, maxPages: 100)
    static let rows: [JSONValue] = (0..<23).map { ["id": .int(Int64($0))] }

    private func machine(prefetch: Int = 0, chaining: PageChaining = .indexed, filter: String? = nil) throws -> Machine {
        let rowFilter = try filter.map { (expression) throws(ScreensPipeError) in try RowFilter(expression: expression) }
        return Machine(
            pipeline: "list", pagination: Self.pagination, chaining: chaining, requestsPageSize: true, prefetch: prefetch,
            rowStages: RowStages(converter: try RowConverter(spec: nil), filter: rowFilter))
    }

    /// The page the scripted server answers `request` with.
    private func page(for request: PageRequest, count: Bool = true) -> FetchedPage {
        let end = min(request.endRow, Self.rows.count)
        let slice = request.startRow < end ? Array(Self.rows[request.startRow..<end]) : []
        return FetchedPage(
            request: request, rows: slice, rowCount: request.includesRowCount && count ? Self.rows.count : nil, origin: .remote)
    }

    private func fetches(_ actions: [Machine.Action]) -> [Machine.FetchTicket] {
        actions.compactMap { action -> Machine.FetchTicket? in
            if case .fetch(let ticket) = action { return ticket }
            return nil
        }
    }

    private func events(_ actions: [Machine.Action]) -> [SessionEvent] {
        actions.flatMap { action -> [SessionEvent] in
            if case .emit(let events) = action { return events }
            return []
        }
    }

    private func names(_ actions: [Machine.Action]) -> [String] {
        events(actions).map(\.name)
    }

    /// Answers every fetch in `actions` (and the fetches those answers start) in order.
    private func answerAll(_ actions: [Machine.Action], _ machine: inout Machine, count: Bool = true) -> [Machine.Action] {
        var pending = fetches(actions)
        var all: [Machine.Action] = []
        while !pending.isEmpty {
            let ticket = pending.removeFirst()
            let answer = machine.fetched(ticket, .success(page(for: ticket.request, count: count)))
            all += answer
            pending += fetches(answer)
        }
        return all
    }

    @Test("load announces page 0 at once, fetches only it, then shows its response and rows")
    func load() throws {
        var machine = try machine()
        let asked = machine.receive(SessionRequest(.load, id: "L"))
        #expect(names(asked) == ["loading"])
        #expect(events(asked).allSatisfy { $0.id == "L" })
        #expect(fetches(asked).map(\.request.index) == [0])
        let shown = answerAll(asked, &machine)
        #expect(names(shown) == ["response"] + Array(repeating: "row", count: 10))
        #expect(events(shown).allSatisfy { $0.id == "L" })
        #expect(fetches(shown).isEmpty)
        #expect(events(shown)[0].envelope["rowCount"] == 23)
    }

    @Test("next fetches one page at a time without prefetch; the last page says so; past it is an error")
    func nextWithoutPrefetch() throws {
        var machine = try machine()
        _ = answerAll(machine.receive(SessionRequest(.load)), &machine)
        let second = machine.receive(SessionRequest(.next, id: 2))
        #expect(fetches(second).map(\.request.index) == [1])
        let shownSecond = answerAll(second, &machine)
        #expect(events(shownSecond)[0].envelope["last"] == nil)
        let third = answerAll(machine.receive(SessionRequest(.next, id: 3)), &machine)
        #expect(events(third)[0].envelope["last"] == true)
        #expect(names(third).filter { $0 == "row" }.count == 3)
        let past = machine.receive(SessionRequest(.next, id: 4))
        #expect(names(past) == ["error"])
        #expect(fetches(past).isEmpty)
        #expect(try #require(events(past)[0].envelope["message"]?.stringValue).contains("past the end"))
    }

    @Test("prefetch looks ahead of the page asked for, and never past the row count")
    func prefetchWindow() throws {
        var machine = try machine(prefetch: 1)
        let load = machine.receive(SessionRequest(.load))
        // Page 0 goes alone: it carries the count.
        #expect(fetches(load).map(\.request.index) == [0])
        let zero = machine.fetched(fetches(load)[0], .success(page(for: fetches(load)[0].request)))
        #expect(fetches(zero).map(\.request.index) == [1])
        _ = answerAll(zero, &machine)
        // Page 1 is in memory: next shows it at once and prefetches page 2, the last one.
        let next = machine.receive(SessionRequest(.next, id: "n"))
        #expect(names(next) == ["loading", "response"] + Array(repeating: "row", count: 10))
        #expect(fetches(next).map(\.request.index) == [2])
        _ = answerAll(next, &machine)
        let last = machine.receive(SessionRequest(.next))
        #expect(fetches(last).isEmpty)
    }

    @Test("page jumps fetch that page only; a page shown again comes from memory")
    func pageJumpAndReplay() throws {
        var machine = try machine()
        _ = answerAll(machine.receive(SessionRequest(.load)), &machine)
        let jump = machine.receive(SessionRequest(.page(2), id: "j"))
        #expect(fetches(jump).map(\.request.index) == [2])
        _ = answerAll(jump, &machine)
        let again = machine.receive(SessionRequest(.page(0), id: "again"))
        #expect(fetches(again).isEmpty)
        #expect(names(again) == ["loading", "response"] + Array(repeating: "row", count: 10))
        #expect(events(again).allSatisfy { $0.id == "again" })
    }

    @Test("select answers with the row of a shown page, and refuses others")
    func select() throws {
        var machine = try machine(filter: "id != 4")
        _ = answerAll(machine.receive(SessionRequest(.load)), &machine)
        let chosen = events(machine.receive(SessionRequest(.select(row: 3), id: "s")))
        #expect(chosen.map(\.name) == ["selected"])
        #expect(chosen[0].envelope["item"] == ["id": 3])
        #expect(chosen[0].envelope["row"] == 3)
        #expect(chosen[0].id == "s")
        let filtered = events(machine.receive(SessionRequest(.select(row: 4))))
        #expect(try #require(filtered[0].envelope["message"]?.stringValue).contains("did not pass the filter"))
        let unseen = events(machine.receive(SessionRequest(.select(row: 15))))
        #expect(unseen.map(\.name) == ["error"])
        let finished = events(machine.receive(SessionRequest(.close, id: "bye")))
        #expect(finished.map(\.name) == ["finished"])
        #expect(finished[0].envelope["selected"] == 1)
        #expect(finished[0].envelope["errors"] == 2)
        #expect(finished[0].envelope["pages"] == 1)
        #expect(finished[0].envelope["rows"] == 10)
        #expect(finished[0].id == "bye")
    }

    @Test("commands before load are errors; the session goes on")
    func beforeLoad() throws {
        var machine = try machine()
        #expect(names(machine.receive(SessionRequest(.next))) == ["error"])
        #expect(names(machine.receive(SessionRequest(.page(1)))) == ["error"])
        #expect(names(machine.receive(SessionRequest(.select(row: 0)))) == ["error"])
        #expect(names(machine.receive(SessionRequest(.unreadable("no")))) == ["error"])
        #expect(fetches(machine.receive(SessionRequest(.load))).count == 1)
    }

    @Test("refresh renews the source, starts over at page 0, and drops answers of the earlier load")
    func refresh() throws {
        var machine = try machine()
        let load = machine.receive(SessionRequest(.load))
        let stale = fetches(load)[0]
        let refresh = machine.receive(SessionRequest(.refresh, id: "r"))
        #expect(names(refresh) == ["loading"])
        #expect(refresh.count == 3)
        #expect(refresh[1] == .renewSource(id: "r"))
        let fresh = fetches(refresh)
        #expect(fresh.map(\.request.index) == [0])
        #expect(fresh[0].load != stale.load)
        #expect(machine.fetched(stale, .success(page(for: stale.request))).isEmpty)
        let shown = answerAll(refresh, &machine)
        #expect(events(shown).allSatisfy { $0.id == "r" })
        #expect(names(machine.receive(SessionRequest(.next))) == ["loading"])
    }

    @Test("a failed page is an error for its command, and fetched again only when asked again")
    func failedPage() throws {
        var machine = try machine(prefetch: 1)
        let load = machine.receive(SessionRequest(.load))
        let zero = machine.fetched(fetches(load)[0], .success(page(for: fetches(load)[0].request)))
        let prefetch = fetches(zero)
        // The prefetched page fails: nobody asked for it, so nothing is said, and it is not retried.
        let failure = ScreensPipeError(.connectivity, "down", page: 1)
        let quiet = machine.fetched(prefetch[0], .failure(failure))
        #expect(quiet.isEmpty)
        // Asked for, it is fetched again (and page 2 ahead of it).
        let next = machine.receive(SessionRequest(.next, id: "n"))
        #expect(fetches(next).map(\.request.index) == [1, 2])
        let failed = machine.fetched(fetches(next)[0], .failure(failure))
        #expect(names(failed) == ["error"])
        #expect(events(failed)[0].envelope["page"] == 1)
        #expect(events(failed)[0].id == "n")
        #expect(fetches(failed).isEmpty)
    }

    @Test("without a row count, a short page ends the list and pages past it are refused")
    func shortPageEnds() throws {
        var machine = try machine()
        _ = answerAll(machine.receive(SessionRequest(.load)), &machine, count: false)
        let far = machine.receive(SessionRequest(.page(2)))
        let shown = answerAll(far, &machine, count: false)
        #expect(events(shown)[0].envelope["last"] == true)
        #expect(names(machine.receive(SessionRequest(.page(5)))) == ["error"])
    }

    @Test("the end of the commands: pages asked for are answered, nothing is prefetched, then finished")
    func inputEndedDrains() throws {
        var machine = try machine(prefetch: 3)
        let load = machine.receive(SessionRequest(.load, id: "L"))
        #expect(machine.inputEnded().isEmpty)
        let answered = machine.fetched(fetches(load)[0], .success(page(for: fetches(load)[0].request)))
        #expect(fetches(answered).isEmpty)
        #expect(names(answered) == ["response"] + Array(repeating: "row", count: 10) + ["finished"])
        #expect(answered.last == .finish)
        #expect(machine.receive(SessionRequest(.next)).isEmpty)
    }

    @Test("the end of the commands with nothing awaited finishes at once; close does even while a page loads")
    func inputEndedAndClose() throws {
        var idle = try machine()
        #expect(names(idle.inputEnded()) == ["finished"])
        var loading = try machine()
        _ = loading.receive(SessionRequest(.load))
        let closed = loading.receive(SessionRequest(.close, id: "c"))
        #expect(names(closed) == ["finished"])
        #expect(closed.last == .finish)
    }

    @Test("a chained list is read in order: next queues behind the page in flight, jumps ahead are refused")
    func chained() throws {
        var machine = try machine(chaining: .chained)
        let load = machine.receive(SessionRequest(.load))
        let queued = machine.receive(SessionRequest(.next, id: "n"))
        #expect(names(queued) == ["loading"])
        #expect(fetches(queued).isEmpty)
        #expect(names(machine.receive(SessionRequest(.page(5)))) == ["error"])
        var first = page(for: fetches(load)[0].request)
        first.continuation = "cursor-1"
        let arrived = machine.fetched(fetches(load)[0], .success(first))
        let second = fetches(arrived)
        #expect(second.map(\.request.index) == [1])
        #expect(second.first?.request.continuation == "cursor-1")
        var last = page(for: second[0].request)
        last.continuation = nil
        let shown = machine.fetched(second[0], .success(last))
        #expect(events(shown).first?.id == "n")
        #expect(events(shown).first?.envelope["last"] == true)
    }

    @Test("a server that repeats a page is an error naming the page")
    func repeatedPage() throws {
        var machine = try machine()
        _ = answerAll(machine.receive(SessionRequest(.load)), &machine)
        let next = machine.receive(SessionRequest(.next))
        var repeated = page(for: PageRequest(index: 0, pagination: Self.pagination))
        repeated.request = fetches(next)[0].request
        repeated.rowCount = nil
        let refused = events(machine.fetched(fetches(next)[0], .success(repeated)))
        #expect(refused.map(\.name) == ["error"])
        #expect(refused[0].envelope["kind"] == "pagination")
    }
}
