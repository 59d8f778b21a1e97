import ScreensBus

/// `format: csv` and `format: tsv`: selected rows as a header line and one record per row.
///
/// CSV follows RFC 4180: records end with CRLF, and a field holding a comma, a double
/// quote, CR or LF is enclosed in double quotes with its quotes doubled. TSV follows the
/// IANA `text/tab-separated-values` registration, which forbids tabs and line breaks inside
/// fields, so those (and the backslash) are escaped as `\t`, `\n`, `\r` and `\\`, the
/// convention PostgreSQL's `COPY` and most TSV readers use; records end with LF.
///
/// The columns are the `fields` when given, else the keys of the first row. A later row
/// with a key outside those columns fails the run (its value would be lost silently);
/// choose the columns with `fields` for ragged rows. Cells: strings as they are, numbers in
/// their original text, `true`/`false`, an empty cell for `null` or a missing key, and
/// nested objects and arrays as compact JSON.
struct DelimitedSink: EventSink {
    enum Dialect: Sendable {
        case csv
        case tsv
    }

    let output: OutputFile
    let dialect: Dialect
    let projection: FieldProjection?

    func consume(_ events: EventSubscription) async throws(SinkFailure) {
        var columns: [String]? = projection?.names
        var line: [UInt8] = []
        var pending: [UInt8] = []
        if let columns { append(header: columns, to: &pending) }
        for await event in events {
            guard case .selected(let selected) = event else { continue }
            let row = projection?.project(selected.item) ?? selected.item
            let object = row.objectValue ?? ["value": row]
            if columns == nil {
                columns = Array(object.keys)
                append(header: columns!, to: &pending)
            }
            guard let columns else { continue }
            if object.count > columns.count || object.keys.contains(where: { !columns.contains($0) }) {
                let extra = object.keys.first { !columns.contains($0) } ?? "?"
                try output.write(pending)
                throw .failed(
                    "row \(selected.row) has the key '\(extra)', which is not one of the \(dialectName) columns taken from the first row (\(columns.joined(separator: ", "))); choose the columns with sink.fields or --fields")
            }
            line.removeAll(keepingCapacity: true)
            for (position, column) in columns.enumerated() {
                if position > 0 { line.append(separator) }
                appendCell(object[column], to: &line)
            }
            line.append(contentsOf: terminator)
            pending.append(contentsOf: line)
            if pending.count >= output.chunkSize { try output.writeChunks(from: &pending) }
        }
        try output.write(pending)
    }

    func close(succeeded: Bool) throws(SinkFailure) -> String? {
        try output.close(succeeded: succeeded)
    }

    private var dialectName: String { dialect == .csv ? "CSV" : "TSV" }
    private var separator: UInt8 { dialect == .csv ? UInt8(ascii: ",") : UInt8(ascii: "\t") }
    private var terminator: [UInt8] { dialect == .csv ? [0x0D, 0x0A] : [0x0A] }

    private func append(header columns: [String], to bytes: inout [UInt8]) {
        for (position, column) in columns.enumerated() {
            if position > 0 { bytes.append(separator) }
            appendText(column, to: &bytes)
        }
        bytes.append(contentsOf: terminator)
    }

    private func appendCell(_ value: JSONValue?, to bytes: inout [UInt8]) {
        switch value {
        case nil, .null?: break
        case .string(let text)?: appendText(text, to: &bytes)
        case .bool(let flag)?: bytes.append(contentsOf: (flag ? "true" : "false").utf8)
        case .int(let number)?: bytes.append(contentsOf: String(number).utf8)
        case .number(let text)?: bytes.append(contentsOf: text.utf8)
        case let nested?: appendText(nested.jsonString, to: &bytes)
        }
    }

    /// RFC 4180: a field holding a comma, a quote or a line break is quoted. (A plain
    /// function: the one-expression closure took the type checker seconds on a loaded machine.)
    private static func needsQuoting(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: ","), UInt8(ascii: "\""), 0x0A, 0x0D: true
        default: false
        }
    }

    private func appendText(_ text: String, to bytes: inout [UInt8]) {
        let utf8 = text.utf8
        switch dialect {
        case .csv:
            let needsQuotes = utf8.contains(where: Self.needsQuoting)
            guard needsQuotes else {
                bytes.append(contentsOf: utf8)
                return
            }
            bytes.append(UInt8(ascii: "\""))
            for byte in utf8 {
                if byte == UInt8(ascii: "\"") { bytes.append(byte) }
                bytes.append(byte)
            }
            bytes.append(UInt8(ascii: "\""))
        case .tsv:
            for byte in utf8 {
                switch byte {
                case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
                case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
                case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
                case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
                default: bytes.append(byte)
                }
            }
        }
    }
}
