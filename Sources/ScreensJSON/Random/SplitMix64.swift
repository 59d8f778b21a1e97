/// A small, fast, seedable generator (Steele, Lea, Flood: SplitMix64).
///
/// One implementation for everything in the package that needs a reproducible sequence:
/// retry jitter (tests fix it; production seeds it from the system generator), the
/// sandbox's fault rate, and the property and mutation tests.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    /// The increment of the state per draw (the golden ratio in 64 bits).
    package static let increment: UInt64 = 0x9E37_79B9_7F4A_7C15

    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    /// Seeded from the system's generator.
    package init() {
        var system = SystemRandomNumberGenerator()
        state = system.next()
    }

    package mutating func next() -> UInt64 {
        state &+= Self.increment
        return Self.mix(state)
    }

    /// The output function: a well-spread 64-bit value for any input, so the n-th draw can
    /// be computed directly as `mix(seed &+ n &* increment)`.
    package static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
