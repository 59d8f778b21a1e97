import ScreensBus

/// How a test compares what a run published with what a test file expects.
///
/// Numbers compare by exact value whatever their form (`1`, `1.0` and `"1.00"` read as a
/// number are one value), object members regardless of order, and an expected event matches
/// an actual one holding at least its fields. Differences are described by path, so a
/// failing case says which field of which row differs.
enum JSONComparison {
    /// Whether `expected` and `actual` are the same JSON value.
    static func equal(_ expected: JSONValue, _ actual: JSONValue) -> Bool {
        differences(expected, actual, path: "", limit: 1).isEmpty
    }

    /// Whether every member of `expected` (recursively, for objects) is in `actual` with an
    /// equal value.
    static func contains(_ actual: JSONValue, _ expected: JSONValue) -> Bool {
        guard case .object(let wanted) = expected, case .object(let present) = actual else { return equal(expected, actual) }
        return wanted.allSatisfy { member in present[member.key].map { contains($0, member.value) } ?? false }
    }

    /// Up to `limit` lines, each naming a path and what differs there.
    static func differences(_ expected: JSONValue, _ actual: JSONValue, path: String, limit: Int) -> [String] {
        var lines: [String] = []
        collect(expected, actual, path: path, into: &lines, limit: limit)
        return lines
    }

    private static func collect(_ expected: JSONValue, _ actual: JSONValue, path: String, into lines: inout [String], limit: Int) {
        guard lines.count < limit else { return }
        switch (expected, actual) {
        case (.object(let wanted), .object(let present)):
            for member in wanted {
                guard let value = present[member.key] else {
                    lines.append("\(join(path, member.key)): expected \(text(member.value)), the row has no such field")
                    if lines.count >= limit { return }
                    continue
                }
                collect(member.value, value, path: join(path, member.key), into: &lines, limit: limit)
            }
            for member in present where wanted[member.key] == nil && lines.count < limit {
                lines.append("\(join(path, member.key)): not expected, got \(text(member.value))")
            }
        case (.array(let wanted), .array(let present)):
            if wanted.count != present.count {
                lines.append("\(path.isEmpty ? "." : path): expected \(wanted.count) items, got \(present.count)")
            }
            for (index, pair) in zip(wanted, present).enumerated() where lines.count < limit {
                collect(pair.0, pair.1, path: "\(path)[\(index)]", into: &lines, limit: limit)
            }
        default:
            if let wanted = ExactDecimal(expected), let present = ExactDecimal(actual), isNumber(expected), isNumber(actual) {
                if wanted.compare(to: present) != 0 { lines.append(mismatch(path, expected, actual)) }
            } else if expected != actual {
                lines.append(mismatch(path, expected, actual))
            }
        }
    }

    private static func isNumber(_ value: JSONValue) -> Bool {
        switch value {
        case .int, .double, .number: true
        default: false
        }
    }

    private static func mismatch(_ path: String, _ expected: JSONValue, _ actual: JSONValue) -> String {
        "\(path.isEmpty ? "." : path): expected \(text(expected)), got \(text(actual))"
    }

    private static func join(_ path: String, _ key: String) -> String {
        FieldPathParser.isPlainIdentifier(key) ? "\(path).\(key)" : "\(path)[\(text(.string(key)))]"
    }

    /// One line of JSON, cut at 200 characters so a huge value does not flood the report.
    static func text(_ value: JSONValue) -> String {
        var writer = JSONWriter()
        writer.write(value)
        let text = String(decoding: writer.bytes, as: UTF8.self)
        return text.count <= 200 ? text : String(text.prefix(200)) + "..."
    }
}
