/// ISO 8601 dates in UTC, the one date format screens-pipe writes.
///
/// JSON-WS sends dates as epoch milliseconds and headless sends ISO text; both become
/// `2026-11-21T09:15:00Z`, with `.SSS` only when the milliseconds are not zero. Done with
/// civil-calendar arithmetic (Howard Hinnant's days-from-civil) so no locale, time zone
/// database or Foundation formatter is involved and the output is the same everywhere.
public enum ISODate {
    /// `2026-11-21T09:15:00Z` (or `…:00.250Z`) for epoch milliseconds.
    public static func format(epochMilliseconds: Int64) -> String {
        let (days, msOfDay) = floorDivide(epochMilliseconds, 86_400_000)
        let (year, month, day) = civil(fromDays: days)
        if (0...9999).contains(year) {
            // Every date a portal holds: written digit by digit into the string's own storage
            // (a converted list formats two dates per row).
            return String(unsafeUninitializedCapacity: 24) { buffer in
                writeDigits(year: year, month: month, day: day, msOfDay: msOfDay, into: buffer)
            }
        }
        let seconds = msOfDay / 1000
        let milliseconds = msOfDay % 1000
        var text = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
        text += pad(seconds / 3600, 2) + ":" + pad(seconds / 60 % 60, 2) + ":" + pad(seconds % 60, 2)
        if milliseconds != 0 { text += "." + pad(milliseconds, 3) }
        return text + "Z"
    }

    /// Appends ``format(epochMilliseconds:)`` of `epochMilliseconds` to `output` as UTF-8,
    /// without making a `String`: a converted row's dates go straight into its text.
    public static func write(epochMilliseconds: Int64, into output: inout [UInt8]) {
        let (days, msOfDay) = floorDivide(epochMilliseconds, 86_400_000)
        let (year, month, day) = civil(fromDays: days)
        guard (0...9999).contains(year) else {
            output.append(contentsOf: format(epochMilliseconds: epochMilliseconds).utf8)
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buffer in
            let count = writeDigits(year: year, month: month, day: day, msOfDay: msOfDay, into: buffer)
            output.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<count]))
        }
    }

    /// Writes many dates as ``write(epochMilliseconds:into:)`` does, keeping the last one's
    /// day: the rows of a page mostly fall on a few days, so most dates are the day's text,
    /// copied, and their time of day.
    package struct Writer: Sendable {
        /// The day of ``dayText``, in days since the epoch; none yet.
        private var day = Int64.min
        /// `yyyy-mm-ddT` of ``day``: eleven bytes.
        private var dayText: (UInt64, UInt64) = (0, 0)

        package init() {}

        /// Writes the date at `target`, which has room for ``longest`` bytes, and returns how
        /// many it took; nil, with nothing written, for a year past 9999 or before 0 (write
        /// ``ISODate/format(epochMilliseconds:)`` of those).
        package mutating func write(epochMilliseconds: Int64, to target: UnsafeMutablePointer<UInt8>) -> Int? {
            let (days, msOfDay) = floorDivide(epochMilliseconds, 86_400_000)
            if days != day {
                let (year, month, dayOfMonth) = civil(fromDays: days)
                guard (0...9999).contains(year) else { return nil }
                withUnsafeMutableBytes(of: &dayText) { text in
                    let buffer = text.bindMemory(to: UInt8.self)
                    _ = writeDay(year: year, month: month, day: dayOfMonth, into: buffer)
                }
                day = days
            }
            let buffer = UnsafeMutableBufferPointer(start: target, count: Self.longest)
            withUnsafeBytes(of: dayText) { text in
                _ = buffer.initialize(from: text.bindMemory(to: UInt8.self)[..<11])
            }
            return writeTime(msOfDay: msOfDay, into: buffer, at: 11)
        }

        /// The most bytes a date of the years 0 to 9999 takes (with milliseconds).
        package static let longest = 24
    }

    /// Writes a date of the years 0 to 9999 into `buffer` (24 bytes at least); returns how
    /// many bytes it took (20, or 24 with milliseconds).
    private static func writeDigits(year: Int64, month: Int64, day: Int64, msOfDay: Int64, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        writeTime(msOfDay: msOfDay, into: buffer, at: writeDay(year: year, month: month, day: day, into: buffer))
    }

    /// Writes `yyyy-mm-ddT` of a year 0 to 9999 at the start of `buffer`; returns 11.
    private static func writeDay(year: Int64, month: Int64, day: Int64, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var digits = Digits(buffer: buffer, position: 0)
        digits.put(year, 4); digits.put("-"); digits.put(month, 2); digits.put("-"); digits.put(day, 2); digits.put("T")
        return digits.position
    }

    /// Writes `hh:mm:ss`, `.SSS` when the milliseconds are not zero, and `Z` into `buffer`
    /// from `start` (13 bytes at most); returns where the date ends.
    private static func writeTime(msOfDay: Int64, into buffer: UnsafeMutableBufferPointer<UInt8>, at start: Int) -> Int {
        let seconds = msOfDay / 1000
        let milliseconds = msOfDay % 1000
        var digits = Digits(buffer: buffer, position: start)
        digits.put(seconds / 3600, 2); digits.put(":"); digits.put(seconds / 60 % 60, 2); digits.put(":"); digits.put(seconds % 60, 2)
        if milliseconds != 0 { digits.put("."); digits.put(milliseconds, 3) }
        digits.put("Z")
        return digits.position
    }

    /// Fixed-width decimal fields and separators, written left to right into a buffer with room.
    private struct Digits {
        let buffer: UnsafeMutableBufferPointer<UInt8>
        var position: Int

        /// `value` (not negative) in exactly `width` digits, zero-padded.
        mutating func put(_ value: Int64, _ width: Int) {
            var rest = value
            for offset in stride(from: width - 1, through: 0, by: -1) {
                buffer[position + offset] = UInt8(truncatingIfNeeded: 48 + rest % 10)
                rest /= 10
            }
            position += width
        }

        mutating func put(_ byte: Unicode.Scalar) {
            buffer[position] = UInt8(ascii: byte)
            position += 1
        }
    }

    /// Epoch milliseconds of ISO text: `2026-11-21`, `2026-11-21T09:15`, `…:00`, `…:00.5`,
    /// with `Z`, `+01:00`, `+0100` or no zone (read as UTC); a space may stand for the `T`.
    /// A fraction finer than a millisecond is cut to the millisecond (`.123456` is 123 ms).
    public static func parse(_ text: String) -> Int64? {
        parse(text, refusingFinerThanMilliseconds: false)
    }

    /// As ``parse(_:)``; with `refusingFinerThanMilliseconds`, a date whose fraction is
    /// finer than a millisecond is nil rather than cut, for a reader that must not round.
    /// Zeros past the millisecond cut nothing (`.1230` is 123 ms either way).
    public static func parse(_ text: String, refusingFinerThanMilliseconds: Bool) -> Int64? {
        var scanner = Scanner(bytes: Array(text.utf8))
        guard let year = scanner.digits(4), scanner.skip("-"), let month = scanner.digits(2), scanner.skip("-"),
            let day = scanner.digits(2), (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        var msOfDay: Int64 = 0
        var offsetMinutes: Int64 = 0
        if scanner.skip("T") || scanner.skip("t") || scanner.skip(" ") {
            guard let hour = scanner.digits(2), hour < 24, scanner.skip(":"), let minute = scanner.digits(2), minute < 60
            else { return nil }
            var second: Int64 = 0
            var millisecond: Int64 = 0
            if scanner.skip(":") {
                guard let value = scanner.digits(2), value < 61 else { return nil }
                second = min(value, 59)
                if scanner.skip(".") || scanner.skip(",") {
                    guard let fraction = scanner.fraction(), !(refusingFinerThanMilliseconds && fraction.cut) else { return nil }
                    millisecond = fraction.milliseconds
                }
            }
            msOfDay = ((hour * 60 + minute) * 60 + second) * 1000 + millisecond
            if scanner.skip("Z") || scanner.skip("z") {
            } else if let sign = scanner.sign() {
                guard let hours = scanner.digits(2) else { return nil }
                _ = scanner.skip(":")
                guard let minutes = scanner.digits(2), hours < 24, minutes < 60 else { return nil }
                offsetMinutes = sign * (hours * 60 + minutes)
            }
        }
        guard scanner.atEnd else { return nil }
        return days(year: year, month: month, day: day) * 86_400_000 + msOfDay - offsetMinutes * 60_000
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    public static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day count since 1970-01-01.
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let quotient = value / divisor
        let remainder = value % divisor
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    private struct Scanner {
        let bytes: [UInt8]
        var position = 0

        var atEnd: Bool { position == bytes.count }

        mutating func skip(_ character: Unicode.Scalar) -> Bool {
            guard position < bytes.count, bytes[position] == UInt8(ascii: character) else { return false }
            position += 1
            return true
        }

        mutating func digits(_ count: Int) -> Int64? {
            guard position + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[position..<position + count] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            position += count
            return value
        }

        /// Milliseconds of a fraction of any length (`.5` is 500, `.123456` is 123), and
        /// whether a digit past the millisecond that is not zero was cut (`.123456`, not `.1230`).
        mutating func fraction() -> (milliseconds: Int64, cut: Bool)? {
            var value: Int64 = 0
            var count = 0
            var cut = false
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                if count < 3 {
                    value = value * 10 + Int64(bytes[position] - UInt8(ascii: "0"))
                } else if bytes[position] != UInt8(ascii: "0") {
                    cut = true
                }
                count += 1
                position += 1
            }
            guard count > 0 else { return nil }
            for _ in count..<max(count, 3) { value *= 10 }
            return (value, cut)
        }

        mutating func sign() -> Int64? {
            if skip("+") { return 1 }
            if skip("-") { return -1 }
            return nil
        }
    }
}
