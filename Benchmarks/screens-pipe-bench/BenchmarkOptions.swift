/// `--name value` options of a benchmark subcommand, with defaults.
struct BenchmarkOptions {
    private var values: [String: String] = [:]
    private var flags: Set<String> = []

    struct UnknownOption: Error, CustomStringConvertible {
        var option: String
        var description: String { "unknown or incomplete option \(option)" }
    }

    init(_ arguments: [String], valued: Set<String>, flags allowedFlags: Set<String>) throws {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if allowedFlags.contains(argument) {
                flags.insert(argument)
            } else if valued.contains(argument), let value = remaining.popFirst() {
                values[argument] = value
            } else {
                throw UnknownOption(option: argument)
            }
        }
    }

    func int(_ name: String, default defaultValue: Int) throws -> Int {
        guard let text = values[name] else { return defaultValue }
        guard let value = Int(text), value > 0 else { throw UnknownOption(option: "\(name) \(text)") }
        return value
    }

    func has(_ flag: String) -> Bool { flags.contains(flag) }

    /// The text given for `name`, if any.
    func value(_ name: String) -> String? { values[name] }
}

/// Runs `body` `iterations` times and returns the fastest run in seconds (the least disturbed one).
func fastestSeconds(iterations: Int, _ body: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    var best = Double.infinity
    for _ in 0..<iterations {
        let elapsed = try clock.measure(body)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        best = min(best, seconds)
    }
    return best
}

/// Megabytes (10^6 bytes) per second, with one decimal.
func megabytesPerSecond(bytes: Int, seconds: Double) -> String {
    let rate = Double(bytes) / seconds / 1e6
    return String((rate * 10).rounded() / 10)
}
