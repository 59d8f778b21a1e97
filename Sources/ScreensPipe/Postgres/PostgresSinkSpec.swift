/// `sink: { type: postgres, url: ..., table: ..., key: [...] }`: selected rows upserted into a
/// PostgreSQL table by a key.
public struct PostgresSinkSpec: Sendable, Hashable {
    /// How rows map onto the table's columns.
    public enum ColumnMode: String, Sendable, Hashable, CaseIterable {
        /// One column per top-level field of the converted row, typed from its values.
        case auto
        /// The key columns, and the whole row in one `jsonb` column named `row`.
        case jsonb
    }

    /// The database.
    public var target: PostgresTarget
    /// The table, optionally schema-qualified (`schema.table`).
    public var table: String
    /// The fields whose values identify a row: the table's unique key, the upsert's conflict target.
    public var key: [String]
    /// How rows map onto columns (default `auto`).
    public var columns: ColumnMode
    /// Rows per transaction (default 500).
    public var batchSize: Int

    /// The most rows one batch may hold: a multi-row insert binds every value, and a statement
    /// takes at most 65,535 parameters.
    public static let maximumBatchSize = 10_000

    /// Creates a sink spec; by default `auto` columns in batches of 500.
    public init(target: PostgresTarget, table: String, key: [String], columns: ColumnMode = .auto, batchSize: Int = 500) {
        self.target = target
        self.table = table
        self.key = key
        self.columns = columns
        self.batchSize = batchSize
    }
}

extension SpecDecoder {
    /// The `postgres` sink's keys; nil after recording what is wrong.
    func decodePostgresSink(_ section: Section) -> PostgresSinkSpec? {
        for key in ["path", "format", "fields"] {
            if let node = section.mapping.pairs.first(where: { $0.key.text == key }) {
                context.fail("key '\(key)' does not apply to sink type 'postgres'", at: node.key.location)
            }
        }
        guard section["url"] != nil else {
            context.fail("sink type 'postgres' needs 'url' (postgres://user@host:port/database)", at: section.location)
            return nil
        }
        let target = decodePostgresTarget(section, besides: "path")
        let table = section.required("table", for: "sink of type 'postgres'").flatMap { context.nonEmptyString($0, key: "table") }
        if let table, !PostgresIdentifier.isAcceptable(qualified: table) {
            context.fail(
                "'table' must be a table name, optionally schema.table, of at most 63 bytes per part and no NUL or control characters",
                at: section["table"]!.location)
        }
        var key: [String] = []
        switch section.required("key", for: "sink of type 'postgres'") {
        case .scalar(let scalar)?:
            key = [scalar.text]
        case .sequence(let sequence)?:
            key = sequence.items.compactMap { context.nonEmptyString($0, key: "key") }
        case let other?:
            context.fail("expected a field name or a list of field names for 'key', found \(other.foundDescription)", at: other.location)
        case nil:
            break
        }
        if let node = section["key"] {
            if key.isEmpty { context.fail("'key' names no field", at: node.location) }
            if Set(key).count != key.count { context.fail("'key' names a field twice", at: node.location) }
            if let bad = key.first(where: { !PostgresIdentifier.isAcceptable($0) }) {
                context.fail("key field '\(bad.prefix(80))' cannot be a column name (at most 63 bytes, no NUL or control characters)", at: node.location)
            }
        }
        let columns = section.choice("columns", PostgresSinkSpec.ColumnMode.self) ?? .auto
        let batchSize = section.int("batch-size", atLeast: 1, atMost: PostgresSinkSpec.maximumBatchSize) ?? 500
        guard let target, let table, !key.isEmpty else { return nil }
        return PostgresSinkSpec(target: target, table: table, key: key, columns: columns, batchSize: batchSize)
    }
}

/// PostgreSQL identifiers as the sink writes them: always double-quoted (so any name the row
/// has, reserved words and mixed case included, means exactly itself), never spliced raw.
enum PostgresIdentifier {
    /// PostgreSQL truncates longer names silently; refused instead, so two fields never merge.
    static let maximumBytes = 63

    static func isAcceptable(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= maximumBytes && !name.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7f }
    }

    /// `schema.table` or `table`, each part acceptable.
    static func isAcceptable(qualified name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return (1...2).contains(parts.count) && parts.allSatisfy { isAcceptable(String($0)) }
    }

    /// `"name"` with inner quotes doubled.
    static func quoted(_ name: String) -> String {
        "\"" + name.replacing("\"", with: "\"\"") + "\""
    }

    /// `"schema"."table"` or `"table"`.
    static func quoted(qualified name: String) -> String {
        name.split(separator: ".", omittingEmptySubsequences: false).map { quoted(String($0)) }.joined(separator: ".")
    }
}
