import ScreensBus
import Synchronization

/// `format: table`: selected rows as aligned columns, for people at a terminal.
///
/// Column widths come from the first rows (a window of 50), so the table streams instead
/// of waiting for the whole list; later values wider than their column are cut with `…`.
/// Widths are terminal columns (``DisplayWidth``): CJK text and emoji take two each. Given
/// a `width` (a terminal's), the table fits it: the widest columns narrow first, and the
/// columns that still do not fit are left out (`--fields` picks them).
struct TableSink: EventSink {
    let output: OutputFile
    let colors: Bool
    private let sampleSize = 50
    private let maxColumnWidth = 40

    let projection: FieldProjection?
    let width: Int?

    init(output: OutputFile, colors: Bool, projection: FieldProjection? = nil, width: Int? = nil) {
        self.output = output
        self.colors = colors
        self.projection = projection
        self.width = width
    }

    func consume(_ events: EventSubscription) async throws(SinkFailure) {
        var pending: [JSONObject] = []
        var layout: TableLayout?
        for await event in events {
            guard case .selected(let selected) = event else { continue }
            let item = projection?.project(selected.item) ?? selected.item
            let row = item.objectValue ?? ["value": item]
            if let layout {
                try output.write(Array(layout.render(row).utf8))
                continue
            }
            pending.append(row)
            if pending.count == sampleSize {
                let ready = TableLayout(sample: pending, maxWidth: maxColumnWidth, colors: colors, fitting: width)
                try write(header: ready, rows: pending)
                layout = ready
                pending.removeAll()
            }
        }
        if layout == nil, !pending.isEmpty {
            try write(header: TableLayout(sample: pending, maxWidth: maxColumnWidth, colors: colors, fitting: width), rows: pending)
        }
    }

    private func write(header layout: TableLayout, rows: [JSONObject]) throws(SinkFailure) {
        try output.write(Array(layout.renderHeader().utf8))
        for row in rows { try output.write(Array(layout.render(row).utf8)) }
    }

    func close(succeeded: Bool) throws(SinkFailure) -> String? {
        try output.close(succeeded: succeeded)
    }
}

/// Column names and widths, and how to render a row into them: the one table renderer,
/// for `format: table` and the command line's own tables (`cache list`).
package struct TableLayout {
    let columns: [String]
    let widths: [Int]
    let colors: Bool

    init(sample: [JSONObject], maxWidth: Int, colors: Bool, fitting totalWidth: Int? = nil) {
        var columns: [String] = []
        var seen: Set<String> = []
        for row in sample {
            for key in row.keys where seen.insert(key).inserted { columns.append(key) }
        }
        var widths = columns.map { column in
            let widest = sample.map { DisplayWidth.of(Self.cell($0[column])) }.max() ?? 0
            return min(maxWidth, max(DisplayWidth.of(column), widest))
        }
        if let totalWidth { Self.fit(&columns, &widths, into: totalWidth) }
        self.columns = columns
        self.widths = widths
        self.colors = colors
    }

    /// The narrowest a column gets before columns are left out: room for a few characters
    /// and the `…` of a cut.
    static let minimumColumnWidth = 12

    /// Narrows the widest column one step at a time until the row (columns two apart) fits
    /// `totalWidth`; when every column is at the minimum, leaves out the last columns.
    static func fit(_ columns: inout [String], _ widths: inout [Int], into totalWidth: Int) {
        func rowWidth() -> Int { widths.reduce(0, +) + 2 * max(0, widths.count - 1) }
        while rowWidth() > totalWidth {
            guard let widest = widths.indices.max(by: { widths[$0] < widths[$1] }), widths[widest] > minimumColumnWidth else { break }
            widths[widest] -= 1
        }
        while rowWidth() > totalWidth, widths.count > 1 {
            widths.removeLast()
            columns.removeLast()
        }
    }

    func renderHeader() -> String {
        let line = zip(columns, widths).map { Self.fit($0, width: $1) }.joined(separator: "  ")
        let rule = widths.map { String(repeating: "─", count: $0) }.joined(separator: "  ")
        if colors { return "\u{1B}[1m\(line.trimmingTrailingSpaces())\u{1B}[0m\n\(rule)\n" }
        return "\(line.trimmingTrailingSpaces())\n\(rule)\n"
    }

    func render(_ row: JSONObject) -> String {
        zip(columns, widths).map { Self.fit(Self.cell(row[$0]), width: $1) }
            .joined(separator: "  ").trimmingTrailingSpaces() + "\n"
    }

    /// Rows of cells as left-aligned columns two spaces apart, widths in terminal columns;
    /// the last column is not padded (it may be long, like a cache key).
    package static func alignedLines(_ rows: [[String]]) -> [String] {
        guard let count = rows.map(\.count).max() else { return [] }
        var widths = [Int](repeating: 0, count: count)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], DisplayWidth.of(cell)) }
        }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - DisplayWidth.of(cell))
            }.joined(separator: "  ")
        }
    }

    /// A value as table text: strings as they are (control characters made visible),
    /// nested values as compact JSON, missing values empty.
    static func cell(_ value: JSONValue?) -> String {
        switch value {
        case nil, .null?: return ""
        case .string(let text)?:
            return String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "·" : $0 }))
        case .bool(let flag)?: return flag ? "true" : "false"
        case .int(let number)?: return String(number)
        case .number(let text)?: return text
        case let other?: return other.jsonString
        }
    }

    /// `text` padded or cut to exactly `width` columns; a cut ends with `…`, and a wide
    /// character that would straddle the edge is left out (its column becomes a space).
    static func fit(_ text: String, width: Int) -> String {
        let textWidth = DisplayWidth.of(text)
        if textWidth <= width { return text + String(repeating: " ", count: width - textWidth) }
        guard width > 0 else { return "" }
        var kept = ""
        var used = 0
        for character in text {
            let columns = DisplayWidth.of(character)
            if used + columns > width - 1 { break }
            kept.append(character)
            used += columns
        }
        return kept + "…" + String(repeating: " ", count: width - 1 - used)
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
