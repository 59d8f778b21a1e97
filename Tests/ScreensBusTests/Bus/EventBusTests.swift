import Synchronization
import Testing

@testable import ScreensBus
@testable import ScreensJSON

private func row(_ index: Int) -> PipelineEvent {
    .selected(SelectedRow(pipeline: "p", page: 0, row: index, item: .int(Int64(index))))
}

private func rowIndex(_ event: PipelineEvent) -> Int? {
    if case .selected(let selected) = event { return selected.row }
    return nil
}

@Suite("EventBus")
struct EventBusTests {
    @Test("one subscriber sees every event in publish order")
    func ordering() async {
        let bus = EventBus(bufferSize: 8)
        let subscription = bus.subscribe()
        let consumer = Task {
            var seen: [Int] = []
            for await event in subscription { seen.append(rowIndex(event) ?? -1) }
            return seen
        }
        for index in 0..<1000 { await bus.publish(row(index)) }
        bus.finish()
        #expect(await consumer.value == Array(0..<1000))
    }

    @Test("batches and single events interleave in order")
    func batches() async {
        let bus = EventBus(bufferSize: 3)
        let subscription = bus.subscribe()
        let consumer = Task { await subscription.reduce(into: [Int]()) { $0.append(rowIndex($1) ?? -1) } }
        await bus.publish(row(0))
        await bus.publish(contentsOf: (1..<50).map(row))
        await bus.publish(row(50))
        bus.finish()
        #expect(await consumer.value == Array(0...50))
    }

    @Test("fan-out: several subscribers each get every event")
    func fanOut() async {
        let bus = EventBus(bufferSize: 4)
        let consumers = (0..<5).map { _ in
            let subscription = bus.subscribe()
            return Task { await subscription.reduce(into: [Int]()) { $0.append(rowIndex($1) ?? -1) } }
        }
        #expect(bus.subscriberCount == 5)
        for index in 0..<200 { await bus.publish(row(index)) }
        bus.finish()
        for consumer in consumers {
            #expect(await consumer.value == Array(0..<200))
        }
    }

    @Test("a slow subscriber holds the producer back and loses nothing")
    func backpressure() async {
        let bufferSize = 4
        let bus = EventBus(bufferSize: bufferSize)
        let published = Atomic<Int>(0)
        let subscription = bus.subscribe()
        let consumer = Task {
            var seen: [Int] = []
            var maxLead = 0
            for await event in subscription {
                seen.append(rowIndex(event) ?? -1)
                // How far the producer got ahead of this consumer.
                maxLead = max(maxLead, published.load(ordering: .sequentiallyConsistent) - seen.count)
                await Task.yield()
                try? await Task.sleep(for: .microseconds(200))
            }
            return (seen, maxLead)
        }
        for index in 0..<300 {
            await bus.publish(row(index))
            published.add(1, ordering: .sequentiallyConsistent)
        }
        bus.finish()
        let (seen, maxLead) = await consumer.value
        #expect(seen == Array(0..<300))
        // The buffer, plus the event in the consumer's hands, plus one publish completing.
        #expect(maxLead <= bufferSize + 2)
    }

    @Test("a subscriber that leaves no longer blocks the bus")
    func cancelledSubscriberReleasesProducer() async {
        let bus = EventBus(bufferSize: 2)
        let abandoned = bus.subscribe()
        let active = bus.subscribe()
        let consumer = Task { await active.reduce(into: 0) { count, _ in count += 1 } }
        let producer = Task {
            for index in 0..<100 { await bus.publish(row(index)) }
        }
        // The abandoned subscriber never reads; the producer is stuck until it is cancelled.
        try? await Task.sleep(for: .milliseconds(20))
        abandoned.cancel()
        await producer.value
        bus.finish()
        #expect(await consumer.value == 100)
        #expect(bus.subscriberCount == 0)
    }

    @Test("cancelling the iterating task ends its subscription")
    func taskCancellation() async {
        let bus = EventBus(bufferSize: 2)
        let subscription = bus.subscribe()
        let consumer = Task { await subscription.reduce(into: 0) { count, _ in count += 1 } }
        await bus.publish(row(0))
        consumer.cancel()
        _ = await consumer.value
        for index in 1..<50 { await bus.publish(row(index)) }
        #expect(bus.subscriberCount == 0)
    }

    @Test("subscribing after finish yields an empty sequence")
    func subscribeAfterFinish() async {
        let bus = EventBus()
        bus.finish()
        let count = await bus.subscribe().reduce(into: 0) { count, _ in count += 1 }
        #expect(count == 0)
    }

    @Test("the delegate receives each kind of event through its own method")
    func delegate() async {
        final class Recorder: ListDelegate {
            let log = Mutex<[String]>([])
            func onListResponse(_ response: ListResponse) async { log.withLock { $0.append("response \(response.page)") } }
            func onListError(_ error: ListError) async { log.withLock { $0.append("error \(error.kind)") } }
            func onSelected(_ row: SelectedRow) async { log.withLock { $0.append("selected \(row.row)") } }
        }
        let bus = EventBus(bufferSize: 1)
        let recorder = Recorder()
        let done = bus.attach(recorder)
        await bus.publish(.started(RunStarted(pipeline: "p", source: "file")))
        await bus.publish(.response(ListResponse(pipeline: "p", page: 0, startRow: 0, endRow: 50, rowCount: 2, rows: 2, origin: .remote)))
        await bus.publish(row(0))
        await bus.publish(row(1))
        await bus.publish(.error(ListError(pipeline: "p", page: 1, kind: "http", status: 503, message: "busy")))
        await bus.publish(.finished(RunFinished(pipeline: "p", pages: 1, rows: 2, selected: 2, errors: 1, succeeded: false)))
        bus.finish()
        await done.value
        #expect(recorder.log.withLock { $0 } == ["response 0", "selected 0", "selected 1", "error http"])
    }
}
