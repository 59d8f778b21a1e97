import Synchronization
import TestSupport
import Testing

@testable import ScreensBus
@testable import ScreensJSON

private func row(_ index: Int) -> PipelineEvent {
    .selected(SelectedRow(pipeline: "p", page: 0, row: index, item: .int(Int64(index))))
}

private func rowIndex(_ event: PipelineEvent) -> Int {
    if case .selected(let selected) = event { return selected.row }
    return -1
}

/// The bus's liveness contract: nothing waits for ever. Each case hung before the bus was a
/// state machine; the `completion` guard turns a regression into a failure, not a hang.
@Suite("EventBus liveness")
struct EventBusLivenessTests {
    @Test("a cancelled publisher stuck on a held, unread subscription returns; that subscription ends after what it held")
    func cancelledPublisherReturns() async throws {
        let bus = EventBus(bufferSize: 2)
        let held = bus.subscribe()  // never read while the publisher runs
        let reader = bus.subscribe()
        let readerSawTwo = AsyncStream<Void>.makeStream()
        let readerTask = Task {
            var seen: [Int] = []
            for await event in reader {
                seen.append(rowIndex(event))
                if seen.count == 2 { readerSawTwo.continuation.yield() }
            }
            return seen
        }
        let publisher = Task {
            for index in 0..<10 { await bus.publish(row(index)) }
        }
        // Events reach subscribers in subscription order: once the reader has 0 and 1, the
        // held subscription's buffer is full and the publisher waits on it with 2.
        for await _ in readerSawTwo.stream { break }
        publisher.cancel()

        let returned: Void? = await completion { await publisher.value }
        #expect(returned != nil, "the cancelled publisher is still waiting")

        // Cut short: the two events it held, then the end, without waiting for finish().
        let heldEvents = await completion { await held.reduce(into: [Int]()) { $0.append(rowIndex($1)) } }
        #expect(heldEvents == [0, 1])

        // Later publishes never reach it: a cut subscription shows a prefix, never a gap.
        await bus.publish(row(10))
        bus.finish()
        let seen = try #require(await completion { await readerTask.value })
        #expect(seen.count >= 3, "the reader had room for 2 when the publisher gave up on the held one")
        // A prefix of 0...10: whole, or cut where the cancelled publisher found it full.
        #expect(seen == Array(0..<seen.count))
    }

    @Test("a publisher whose task is already cancelled never waits for a full subscriber")
    func alreadyCancelledPublisherNeverWaits() async {
        let bus = EventBus(bufferSize: 1)
        let held = bus.subscribe()
        let published: Void? = await completion {
            await Task {
                withUnsafeCurrentTask { $0?.cancel() }
                for index in 0..<5 { await bus.publish(row(index)) }
            }.value
        }
        #expect(published != nil, "the publisher waited although its task was cancelled")
        // The held subscription keeps the event that fitted, then ends.
        let heldEvents = await completion { await held.reduce(into: [Int]()) { $0.append(rowIndex($1)) } }
        #expect(heldEvents == [0])
    }

    @Test("two tasks iterating one subscription: one gets every event, the other ends at once")
    func oneConsumerPerSubscription() async throws {
        let bus = EventBus(bufferSize: 4)
        let subscription = bus.subscribe()
        let first = Task { await subscription.reduce(into: [Int]()) { $0.append(rowIndex($1)) } }
        let second = Task { await subscription.reduce(into: [Int]()) { $0.append(rowIndex($1)) } }
        for index in 0..<10 { await bus.publish(row(index)) }
        bus.finish()
        let results = try #require(await completion { [await first.value, await second.value] })
        #expect(results.sorted { $0.count < $1.count } == [[], Array(0..<10)])
    }

    @Test("a later iterator of a subscription ends at once and leaves the first one its events")
    func laterIteratorEndsAtOnce() async {
        let bus = EventBus(bufferSize: 4)
        let subscription = bus.subscribe()
        var consumer = subscription.makeAsyncIterator()
        let latecomer = await completion { await subscription.reduce(into: 0) { count, _ in count += 1 } }
        #expect(latecomer == 0)
        await bus.publish(row(0))
        await bus.publish(row(1))
        bus.finish()
        var seen: [Int] = []
        while let event = await consumer.next() { seen.append(rowIndex(event)) }
        #expect(seen == [0, 1])
    }

    @Test("finish releases a publisher waiting on a full subscription")
    func finishReleasesPublisher() async {
        let bus = EventBus(bufferSize: 1)
        let held = bus.subscribe()
        let reader = bus.subscribe()
        let readerSawOne = AsyncStream<Void>.makeStream()
        let readerTask = Task {
            var count = 0
            for await _ in reader {
                count += 1
                if count == 1 { readerSawOne.continuation.yield() }
            }
            return count
        }
        let publisher = Task { for index in 0..<5 { await bus.publish(row(index)) } }
        for await _ in readerSawOne.stream { break }
        bus.finish()
        let returned: Void? = await completion { await publisher.value }
        #expect(returned != nil)
        #expect(await completion { await held.reduce(into: [Int]()) { $0.append(rowIndex($1)) } } == [0])
        #expect(await completion { await readerTask.value } == 1)
    }
}
