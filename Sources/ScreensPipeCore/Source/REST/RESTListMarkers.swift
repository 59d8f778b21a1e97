import ScreensBus

/// How a REST page's body says where the list ends, read the same way by every paginator
/// and by `paginate: auto`: a count (`total`, `total-pages`) and a `has-more` flag.
///
/// A value that is there but unreadable is an error naming the path and the page, never a
/// silent "no count": ignoring it would end the list by another rule, possibly early.
enum RESTListMarkers {
    /// A count at `path`: nil when absent or null; a whole number or a string of one
    /// (`"25"`, as some APIs quote their totals) otherwise.
    static func count(_ value: JSONValue?, path: String, page: Int) throws(ScreensPipeError) -> Int? {
        switch value {
        case nil, .null?:
            return nil
        case .string(let text)?:
            guard let number = integer(text) else { throw notACount(value!, path: path, page: page) }
            return try nonNegative(number, path: path, page: page)
        case let other?:
            guard let number = other.int64Value, let exact = Int(exactly: number) else { throw notACount(other, path: path, page: page) }
            return try nonNegative(exact, path: path, page: page)
        }
    }

    /// A `has-more` flag at `path`: nil when absent or null; `true`/`false` or the strings
    /// `"true"`/`"false"` otherwise.
    static func flag(_ value: JSONValue?, path: String, page: Int) throws(ScreensPipeError) -> Bool? {
        switch value {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        case .string("true")?: return true
        case .string("false")?: return false
        case let other?:
            throw ScreensPipeError(
                .malformedResponse,
                "expected true or false at '\(path)' (has-more), found \(sanitizedServerText(other.jsonString, limit: 40))",
                page: page)
        }
    }

    /// A decimal integer of at most 18 digits, with an optional minus: no spaces, signs or
    /// exponents, so that `"1e3"` or `" 25"` is refused rather than read as something else.
    private static func integer(_ text: String) -> Int? {
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.count <= 18, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text)
    }

    private static func nonNegative(_ number: Int, path: String, page: Int) throws(ScreensPipeError) -> Int {
        guard number >= 0 else {
            throw ScreensPipeError(.malformedResponse, "the count at '\(path)' is \(number), which is negative", page: page)
        }
        return number
    }

    private static func notACount(_ value: JSONValue, path: String, page: Int) -> ScreensPipeError {
        ScreensPipeError(
            .malformedResponse,
            "expected a whole number at '\(path)', found \(sanitizedServerText(value.jsonString, limit: 40))",
            page: page)
    }
}
