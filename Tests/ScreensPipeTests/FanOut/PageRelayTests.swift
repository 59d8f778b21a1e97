import Synchronization
import Testing
@testable import ScreensPipeCore
import ScreensPipe

@Suite("fan-out: the relay between a child's loader and the ordered delivery")
struct PageRelayTests {
    @Test("a sender ahead of the receiver waits once the relay holds one item; items arrive in order")
    func boundedAndOrdered() async {
        let relay = PageRelay()
        let sent = Atomic(0)
        let producer = Task {
            for index in 0..<5 {
                guard await relay.send(.failed(.pagination("item \(index)"))) else { return }
                sent.add(1, ordering: .relaxed)
            }
        }
        for _ in 0..<200 { await Task.yield() }
        // One item fits; the second send waits for the receiver.
        #expect(sent.load(ordering: .relaxed) <= 1)
        var messages: [String] = []
        for _ in 0..<5 {
            if case .failed(let error) = await relay.receive() { messages.append(error.message) }
        }
        await producer.value
        #expect(messages == (0..<5).map { "item \($0)" })
        #expect(sent.load(ordering: .relaxed) == 5)
    }

    @Test("closing releases a waiting sender with false, and later sends return false at once")
    func closeReleasesTheSender() async {
        let relay = PageRelay()
        #expect(await relay.send(.finished))
        let waiting = Task { await relay.send(.finished) }
        for _ in 0..<50 { await Task.yield() }
        relay.close()
        #expect(await waiting.value == false)
        #expect(await relay.send(.finished) == false)
    }

    @Test("a cancelled receiver gets a cancelled failure instead of waiting forever")
    func cancelledReceiver() async {
        let relay = PageRelay()
        let receiver = Task { await relay.receive() }
        receiver.cancel()
        guard case .failed(let error) = await receiver.value else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.code == .cancelled)
    }
}
