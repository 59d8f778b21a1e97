import ScreensBus

/// `incremental:` — deliver only the rows that changed since the last complete run.
///
/// A cursor field (a path in the raw or the converted row) orders the rows by change; the
/// largest value a complete run delivered is committed with the output, and the next run
/// delivers only rows past it. See IncrementalLoads.md.
public struct IncrementalSpec: Sendable, Hashable {
    /// The path of the cursor value in the row, e.g. `modifiedDate` or `dateModified`.
    public var cursor: FieldPath
    /// Whether ``cursor`` is read in the row as the server sent it or as converted.
    public var row: CursorRow
    /// How cursor values are read and compared.
    public var type: CursorType
    /// The cursor of the first run (rows at or before it are not delivered); nil delivers every row.
    public var initial: CursorValue?
    /// How far behind the stored cursor a run reads again, to catch late writes.
    public var lookback: CursorLookback?
    /// Rows past this value are not delivered, and the cursor never moves past it.
    public var end: CursorValue?
    /// Where `incremental:` starts in the pipeline file, for messages.
    public var location: SourceLocation?

    /// Creates an incremental spec on `cursor`, read in the raw row unless told otherwise.
    public init(
        cursor: FieldPath, row: CursorRow = .raw, type: CursorType, initial: CursorValue? = nil,
        lookback: CursorLookback? = nil, end: CursorValue? = nil, location: SourceLocation? = nil
    ) {
        self.cursor = cursor
        self.row = row
        self.type = type
        self.initial = initial
        self.lookback = lookback
        self.end = end
        self.location = location
    }
}

/// Which row the cursor path is read in (`incremental.in`).
public enum CursorRow: String, Sendable, Hashable, CaseIterable {
    /// The object as the server sent it: the only one whose field names the server knows,
    /// so the only one a cursor can be pushed to the server from.
    case raw
    /// The row after `convert:`.
    case converted
}

/// How cursor values are read and ordered (`incremental.type`).
public enum CursorType: String, Sendable, Hashable, CaseIterable {
    /// Epoch milliseconds (JSON-WS `modifiedDate`) or ISO 8601 text (headless `dateModified`),
    /// ordered in time.
    case date
    /// A 64-bit integer, as a number or as decimal text, ordered by value.
    case integer
    /// Text, ordered by its Unicode scalars (as `sort` orders ISO text and zero-padded ids).
    case string
}

/// `incremental.lookback`: how far before the stored cursor the next run starts reading.
public enum CursorLookback: Sendable, Hashable {
    /// For a date cursor: a duration (`10m`).
    case duration(milliseconds: Int64)
    /// For an integer cursor: an amount (`100`).
    case amount(Int64)
}

extension IncrementalSpec {
    /// The spec as `plan` prints it, in pipeline-file keys.
    var describedMembers: [(String, YAMLTextWriter.Value)] {
        var members: [(String, YAMLTextWriter.Value)] = [
            ("cursor", .string(cursor.description)), ("in", .raw(row.rawValue)), ("type", .raw(type.rawValue)),
        ]
        if let initial { members.append(("initial", .string(initial.text))) }
        switch lookback {
        case .duration(let milliseconds)?: members.append(("lookback", .raw(ConfigUnitText.duration(.milliseconds(milliseconds)))))
        case .amount(let amount)?: members.append(("lookback", .raw("\(amount)")))
        case nil: break
        }
        if let end { members.append(("end", .string(end.text))) }
        return members
    }
}
