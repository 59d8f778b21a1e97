import Testing

@testable import ScreensBus
@testable import ScreensJSON

private func row(_ index: Int) -> BusMessage {
    .event(.selected(SelectedRow(pipeline: "p", page: 0, row: index, item: .int(Int64(index)))))
}

/// A page message holding `rows` selected rows: it weighs `rows + 1` events.
private func page(_ index: Int, rows: Int) -> BusMessage {
    var page = PageEvents(response: ListResponse(pipeline: "p", page: index, startRow: 0, endRow: rows, rowCount: nil, rows: rows, origin: .remote))
    for row in 0..<rows { page.appendSelected(row: row, item: .int(Int64(row))) }
    return .page(page)
}

private func rows(_ range: Range<Int>) -> ArraySlice<BusMessage> {
    ArraySlice(range.map(row))
}

/// Waiters are plain names here: each test drives the machine event by event and checks the
/// action it returns, with no task and no timing.
private typealias Machine = SubscriberStateMachine<String, String>

/// The names of the publishers an action resumes, and the consumer with its delivery.
private func resumed(_ action: Machine.ProducerWaitAction) -> (producers: [String], consumer: String?, SubscriberDelivery?) {
    guard case .resume(let producers, let consumer) = action else { return ([], nil, nil) }
    return (producers, consumer?.continuation, consumer?.delivery)
}

private func resumed(_ action: Machine.EndAction) -> (producers: [String], consumer: String?, SubscriberDelivery?) {
    guard case .resume(let consumer, let producers) = action else { return ([], nil, nil) }
    return (producers, consumer?.continuation, consumer?.delivery)
}

/// Takes what `next` delivers, or records what it did instead.
private func take(_ machine: inout Machine) -> (SubscriberDelivery, released: [String])? {
    switch machine.next() {
    case .deliver(let event, let released): return (.event(event), released)
    case .finish(let delivery): return (delivery, [])
    case .suspend: return nil
    }
}

@Suite("Subscriber state machine")
struct SubscriberStateMachineTests {
    @Test("a waiting consumer gets the first event at once; the rest is buffered up to capacity")
    func consumerTakesFirstEvent() throws {
        var machine = Machine(capacity: 2)
        guard case .suspend = machine.next() else { throw Failure("an empty queue must suspend the consumer") }
        guard case .none = machine.consumerWaits("consumer") else { throw Failure("the consumer must be stored") }
        guard case .wait(let rest, _, let consumer) = machine.send(rows(0..<4)) else {
            throw Failure("four events do not fit into one consumer and two slots")
        }
        #expect(consumer?.continuation == "consumer" && consumer?.delivery == .event(row(0)))
        #expect(Array(rest) == [row(3)])
    }

    @Test("a waiting publisher is released, in order, once the consumer makes room")
    func publisherReleasedWhenThereIsRoom() throws {
        var machine = Machine(capacity: 2)
        guard case .wait(let rest, let id, nil) = machine.send(rows(0..<3)) else { throw Failure("must wait") }
        guard case .none = machine.producerWaits(id: id, events: rest, continuation: "publisher", isCancelled: false) else {
            throw Failure("a full buffer keeps the publisher waiting")
        }
        // The first take makes room for the publisher's last event: it is released then.
        let first = try #require(take(&machine))
        #expect(first.0 == .event(row(0)) && first.released == ["publisher"])
        #expect(take(&machine)?.0 == .event(row(1)))
        #expect(take(&machine)?.0 == .event(row(2)))
        #expect(take(&machine) == nil)
    }

    @Test("a cancelled publisher does not wait: the subscription drains what it holds, then ends")
    func cancelledPublisherCutsShort() throws {
        var machine = Machine(capacity: 1)
        guard case .wait(let rest, let id, nil) = machine.send(rows(0..<3)) else { throw Failure("must wait") }
        let action = resumed(machine.producerWaits(id: id, events: rest, continuation: "publisher", isCancelled: true))
        #expect(action.producers == ["publisher"])
        guard case .draining = machine.state else { throw Failure("cut short: \(machine.state)") }
        // Later events are dropped: a prefix, never a gap.
        guard case .done(nil) = machine.send(rows(3..<4)) else { throw Failure("a cut subscription takes nothing") }
        #expect(take(&machine)?.0 == .event(row(0)))
        #expect(take(&machine)?.0 == .end)
    }

    @Test("cancellation of a publisher already waiting releases it and every other waiting publisher")
    func cancellationWhileWaiting() throws {
        var machine = Machine(capacity: 1)
        guard case .wait(let first, let firstID, nil) = machine.send(rows(0..<2)) else { throw Failure("must wait") }
        _ = machine.producerWaits(id: firstID, events: first, continuation: "first", isCancelled: false)
        guard case .wait(let second, let secondID, nil) = machine.send(rows(2..<3)) else { throw Failure("queued behind") }
        _ = machine.producerWaits(id: secondID, events: second, continuation: "second", isCancelled: false)
        #expect(Set(resumed(machine.producerCancelled(id: secondID)).producers) == ["first", "second"])
        // A cancellation that finds no waiting publisher changes nothing.
        guard case .none = machine.producerCancelled(id: secondID) else { throw Failure("already released") }
        #expect(take(&machine)?.0 == .event(row(0)))
        #expect(take(&machine)?.0 == .end)
    }

    @Test("a second consumer waiting on one subscription is refused; the first keeps its place")
    func secondConsumerRefused() throws {
        var machine = Machine(capacity: 2)
        _ = machine.consumerWaits("first")
        #expect(take(&machine)?.0 == .refused)
        guard case .resume(let refused, let released) = machine.consumerWaits("second") else {
            throw Failure("the second consumer must be answered at once")
        }
        #expect(refused.continuation == "second" && refused.delivery == .refused && released.isEmpty)
        guard case .done(let delivered) = machine.send(rows(0..<1)) else { throw Failure("fits") }
        #expect(delivered?.continuation == "first" && delivered?.delivery == .event(row(0)))
    }

    @Test("finish releases waiting publishers, lets the consumer drain, then ends")
    func finishDrainsThenEnds() throws {
        var machine = Machine(capacity: 1)
        guard case .wait(let rest, let id, nil) = machine.send(rows(0..<2)) else { throw Failure("must wait") }
        _ = machine.producerWaits(id: id, events: rest, continuation: "publisher", isCancelled: false)
        #expect(resumed(machine.finish()).producers == ["publisher"])
        #expect(take(&machine)?.0 == .event(row(0)))
        #expect(take(&machine)?.0 == .end)
        guard case .none = machine.finish() else { throw Failure("finish is idempotent") }
    }

    @Test("finish with a consumer waiting on an empty buffer ends it at once")
    func finishEndsWaitingConsumer() {
        var machine = Machine(capacity: 1)
        _ = machine.consumerWaits("consumer")
        let action = resumed(machine.finish())
        #expect(action.consumer == "consumer" && action.2 == .end)
    }

    @Test("a subscriber that leaves releases the consumer and every publisher, and drops the rest")
    func cancelReleasesEveryone() throws {
        var machine = Machine(capacity: 1)
        guard case .wait(let rest, let id, nil) = machine.send(rows(0..<2)) else { throw Failure("must wait") }
        _ = machine.producerWaits(id: id, events: rest, continuation: "publisher", isCancelled: false)
        #expect(resumed(machine.cancel()).producers == ["publisher"])
        #expect(take(&machine)?.0 == .end)
        guard case .done(nil) = machine.send(rows(2..<3)) else { throw Failure("nothing is taken after cancel") }
        // A consumer arriving late is answered at once, never stored.
        guard case .resume(let late, _) = machine.consumerWaits("late") else { throw Failure("must not wait") }
        #expect(late.delivery == .end)
    }

    @Test("a page takes as much of the buffer as its events: the publisher waits until they fit")
    func pageWeighsItsEvents() throws {
        var machine = Machine(capacity: 4)
        guard case .done(nil) = machine.send(rows(0..<1)) else { throw Failure("one event fits") }
        // A page of 3 rows weighs 4 events: 1 + 4 > 4, so it waits behind the buffered row.
        guard case .wait(let rest, let id, nil) = machine.send([page(0, rows: 3)]) else { throw Failure("the page must wait") }
        #expect(Array(rest) == [page(0, rows: 3)])
        guard case .none = machine.producerWaits(id: id, events: rest, continuation: "publisher", isCancelled: false) else {
            throw Failure("still no room")
        }
        let first = try #require(take(&machine))
        #expect(first.0 == .event(row(0)) && first.released == ["publisher"])
        #expect(take(&machine)?.0 == .event(page(0, rows: 3)))
        #expect(take(&machine) == nil)
    }

    @Test("a page heavier than the whole buffer still goes through, alone")
    func pageHeavierThanCapacity() throws {
        var machine = Machine(capacity: 2)
        guard case .done(nil) = machine.send([page(0, rows: 10)]) else { throw Failure("an empty buffer takes any page") }
        guard case .wait(let rest, _, nil) = machine.send(rows(0..<1)) else { throw Failure("nothing fits beside it") }
        #expect(Array(rest) == [row(0)])
        #expect(take(&machine)?.0 == .event(page(0, rows: 10)))
    }
}

private struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
