import Synchronization

/// Open connections now and the most ever open at once: lets a test see how many
/// connections a client really holds to the portal (its per-host cap), not just how many
/// requests it made.
final class ConnectionGauge: Sendable {
    /// Both counts change under one lock, so the peak never misses a moment.
    private let counts = Mutex<(open: Int, peak: Int, accepted: Int)>((0, 0, 0))

    var peak: Int { counts.withLock { $0.peak } }
    var accepted: Int { counts.withLock { $0.accepted } }

    func opened() {
        counts.withLock { counts in
            counts.open += 1
            counts.accepted += 1
            counts.peak = max(counts.peak, counts.open)
        }
    }

    func closed() {
        counts.withLock { $0.open -= 1 }
    }
}
