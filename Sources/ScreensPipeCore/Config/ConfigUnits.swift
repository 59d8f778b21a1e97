/// The unit syntax of pipeline files: durations (`15s`, `200ms`, `1h30m`, bare seconds) and
/// byte sizes (`64MiB`, `1MB`, bare bytes). The one duration grammar: the sandbox's
/// command-line options read durations with it too.
package enum ConfigUnits {
    static let durationUnits = "ms, s, m, h"
    static let sizeUnits = "B, KB, MB, GB, KiB, MiB, GiB"

    /// The longest duration any key takes (ten years); longer texts are out of range
    /// rather than a `Duration` the arithmetic after it could overflow.
    static let maximumDuration = Duration.seconds(10 * 366 * 86_400)

    /// Parses a duration: one or more `<number><unit>` parts, or a bare number of seconds.
    /// Nil when the text is not a duration or is longer than ``maximumDuration``.
    package static func duration(_ text: String) -> Duration? {
        guard let milliseconds = milliseconds(text), milliseconds <= maximumMilliseconds else { return nil }
        return .milliseconds(milliseconds)
    }

    /// The length of a duration text in milliseconds, computed in floating point so that no
    /// text can overflow: `99999999999999999999h` is a (huge) number, or `+inf`, to range-check.
    static func milliseconds(_ text: String) -> Double? {
        if let seconds = Double(text), seconds.isFinite, text.first != "+" {
            return seconds >= 0 ? seconds * 1000 : nil
        }
        var total = 0.0
        var rest = Substring(text)
        guard !rest.isEmpty else { return nil }
        while !rest.isEmpty {
            let number = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
            guard !number.isEmpty, let value = Double(number) else { return nil }
            rest = rest.dropFirst(number.count)
            let unit = rest.prefix { $0.isASCII && $0.isLetter }
            rest = rest.dropFirst(unit.count)
            switch unit {
            case "ms": total += value
            case "s": total += value * 1000
            case "m": total += value * 60_000
            case "h": total += value * 3_600_000
            default: return nil
            }
        }
        return total
    }

    static let maximumMilliseconds = Double(maximumDuration.components.seconds) * 1000

    /// Parses a size in bytes: a number with an optional decimal (`MB`) or binary (`MiB`) unit.
    static func size(_ text: String) -> Int? {
        let number = text.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
        guard !number.isEmpty, let value = Double(number) else { return nil }
        let multiplier: Double
        switch text.dropFirst(number.count) {
        case "", "B": multiplier = 1
        case "KB": multiplier = 1e3
        case "MB": multiplier = 1e6
        case "GB": multiplier = 1e9
        case "KiB": multiplier = 1024
        case "MiB": multiplier = 1_048_576
        case "GiB": multiplier = 1_073_741_824
        default: return nil
        }
        let bytes = (value * multiplier).rounded()
        return bytes < Double(Int.max) ? Int(bytes) : nil
    }
}

/// "Did you mean" hints by edit distance.
package enum KeySuggestion {
    /// The candidate closest to `word`, when it is close enough to be a likely typo.
    package static func closest(to word: String, among candidates: [String]) -> String? {
        let limit = max(1, min(3, word.count / 3))
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(word, candidate)
            if distance <= limit, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.candidate
    }

    /// Edit distance counting an insertion, a deletion, a substitution or a swap of two
    /// neighbours as one edit (optimal string alignment), case-insensitively.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.lowercased().unicodeScalars)
        let b = Array(b.lowercased().unicodeScalars)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}

/// How durations and sizes are written back: the largest unit that is exact.
enum ConfigUnitText {
    static func duration(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = attoseconds / 1_000_000_000
        guard nanoseconds % 1_000_000 == 0 else {
            return "\(Double(seconds) * 1000 + Double(attoseconds) / 1e15)ms"
        }
        let milliseconds = seconds * 1000 + nanoseconds / 1_000_000
        for (unit, size) in [("h", Int64(3_600_000)), ("m", 60_000), ("s", 1000)] where milliseconds % size == 0 && milliseconds != 0 {
            return "\(milliseconds / size)\(unit)"
        }
        return "\(milliseconds)ms"
    }

    static func size(_ bytes: Int) -> String {
        for (unit, size) in [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] where bytes % size == 0 && bytes != 0 {
            return "\(bytes / size)\(unit)"
        }
        return "\(bytes)"
    }
}
