internal import NIOCore
import Synchronization

/// What every connection of one server shares: the routes, the fault plan and the counters.
final class ServerState: Sendable {
    let router: Router
    let faults: FaultInjector
    private let served = Atomic<Int>(0)
    private let connections = Mutex<[ObjectIdentifier: any Channel]>([:])
    let connectionGauge = ConnectionGauge()

    init(router: Router, faults: FaultInjector) {
        self.router = router
        self.faults = faults
    }

    var requestCount: Int { served.load(ordering: .relaxed) }

    func countRequest() { served.add(1, ordering: .relaxed) }

    /// Remembers an open connection so ``closeAll()`` can end stalled ones when the server stops.
    func track(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        connections.withLock { $0[id] = channel }
        connectionGauge.opened()
        channel.closeFuture.whenComplete { [weak self] _ in
            self?.connectionGauge.closed()
            _ = self?.connections.withLock { $0.removeValue(forKey: id) }
        }
    }

    func closeAll() async {
        let open = connections.withLock { Array($0.values) }
        for channel in open { try? await channel.close() }
    }
}
