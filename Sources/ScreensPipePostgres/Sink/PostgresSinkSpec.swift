import ScreensPipeCore
public import ScreensBus

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

    /// What the sink does with keys the rows do not bring.
    public enum WriteMode: String, Sendable, Hashable, CaseIterable {
        /// Rows are upserted; keys absent from the run stay in the table.
        case upsert
        /// After a complete run, keys this run did not deliver are deleted in the same
        /// transaction as the last batch, so the table equals the list.
        case mirror
    }

    /// What `mode: mirror` does when an `on-response` rule with `action: end-list` ended the
    /// list (`mirror-after-end-list`): the rule may have matched a transient answer (one 404),
    /// so the rows of the pages after it are kept unless the user says the rule marks the
    /// real end.
    public enum MirrorAfterEndList: String, Sendable, Hashable, CaseIterable {
        /// Nothing is deleted: the list may go on past the page the rule matched (default).
        case keep
        /// The rule marks the list's real end: keys not delivered are deleted as after any
        /// complete run.
        case delete
    }

    /// A row that stands for a deletion (Liferay's trash, a headless `status` of "deleted"):
    /// its key is deleted from the table instead of upserted.
    public struct DeletionMarker: Sendable, Hashable {
        /// A top-level field of the converted row.
        public var field: String
        /// The values that mark the row deleted (numbers compare by value: 8 matches 8.0).
        public var values: [JSONValue]

        /// Creates a marker: `field` equal to one of `values` means deleted.
        public init(field: String, values: [JSONValue]) {
            self.field = field
            self.values = values
        }

        /// Whether `row` is a tombstone.
        func marks(_ row: JSONValue) -> Bool {
            guard let value = row[field] else { return false }
            return values.contains { marker in
                if marker == value { return true }
                if let markerInteger = marker.int64Value, let integer = value.int64Value { return markerInteger == integer }
                guard marker.isNumber, value.isNumber, let markerNumber = marker.doubleValue, let number = value.doubleValue else { return false }
                return markerNumber == number
            }
        }
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
    /// `upsert` (default) or `mirror`.
    public var mode: WriteMode = .upsert
    /// `mirror`: whether a list ended by an `end-list` rule is complete (default `keep`).
    public var mirrorAfterEndList: MirrorAfterEndList = .keep
    /// Rows that delete their key instead of being written; nil: every row is written.
    public var deleted: DeletionMarker?

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
        let mode = section.choice("mode", PostgresSinkSpec.WriteMode.self) ?? .upsert
        let afterEndList = section.choice("mirror-after-end-list", PostgresSinkSpec.MirrorAfterEndList.self) ?? .keep
        if mode != .mirror, let node = section["mirror-after-end-list"] {
            context.fail("'mirror-after-end-list' applies only to 'mode: mirror'", at: node.location)
        }
        let deleted = section.section("deleted").flatMap(decodeDeletionMarker)
        if let deleted, key.contains(deleted.field), let node = section["deleted"] {
            context.fail("'deleted.field' names the key field '\(deleted.field)'; a row's key cannot say it is deleted", at: node.location)
        }
        guard let target, let table, !key.isEmpty else { return nil }
        var spec = PostgresSinkSpec(target: target, table: table, key: key, columns: columns, batchSize: batchSize)
        spec.mode = mode
        spec.mirrorAfterEndList = afterEndList
        spec.deleted = deleted
        return spec
    }

    /// `deleted: { field: status, equals: 8 }` (or `equals: [8, 9]`).
    private func decodeDeletionMarker(_ section: Section) -> PostgresSinkSpec.DeletionMarker? {
        section.checkKeys(["field", "equals"])
        let field = section.required("field", for: "sink.deleted").flatMap { context.nonEmptyString($0, key: "deleted.field") }
        guard let equalsNode = section.required("equals", for: "sink.deleted") else { return nil }
        var values: [JSONValue]
        switch context.json(equalsNode, key: "deleted.equals") {
        case .array(let items): values = items
        case let value: values = [value]
        }
        if values.isEmpty || values.contains(where: { if case .object = $0 { true } else if case .array = $0 { true } else { false } }) {
            context.fail("'deleted.equals' must be a value (8, trashed, true) or a list of values", at: equalsNode.location)
            values = []
        }
        guard let field, !values.isEmpty else { return nil }
        return PostgresSinkSpec.DeletionMarker(field: field, values: values)
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

extension PostgresSinkSpec {
    /// `mode: mirror` deletes every key a complete run did not deliver, so it needs runs that
    /// see the whole list: not an incremental one (which delivers changes only) and not one
    /// cut short by `filter.limit` (which would never complete).
    package func checkPipeline(_ top: Section, incremental: Bool, filter: FilterSpec?, decoder: SpecDecoder) {
        let context = decoder.context
        guard mode == .mirror, let modeNode = top.section("sink")?["mode"] else { return }
        if incremental {
            context.fail(
                "sink mode 'mirror' deletes the keys a run did not deliver, and an incremental run delivers only what changed; use 'deleted:' for tombstones, or drop 'incremental'",
                at: modeNode.location)
        }
        if filter?.limit != nil {
            context.fail("sink mode 'mirror' needs the whole list, and 'filter.limit' stops before its end", at: modeNode.location)
        }
    }
}
