import ScreensPipeCore
import ScreensBus
import Synchronization
internal import PostgresNIO
internal import Logging

/// The `postgres` sink: selected rows upserted into a table by the pipeline's key, in
/// batches, one transaction per batch.
///
/// Upserts are idempotent, so a run that dies between batches loses nothing a rerun does not
/// write again, and duplicates nothing: rerun, the table equals the list. Within a batch a key
/// that comes twice keeps its last row, as a second batch would.
///
/// The table is created when missing (`auto`: one column per field, typed from the first
/// batch's values, new fields added as columns when they appear; `jsonb`: the key columns and
/// the row in `row`). An existing table must have the key columns under a unique index and,
/// for `jsonb`, a `row` column of type jsonb; otherwise the run stops before writing, saying
/// what is missing. Identifiers are always quoted, values always parameters.
///
/// Deletes: a row the spec's ``PostgresSinkSpec/deleted`` marker picks deletes its key in its
/// batch's transaction. Under `mode: mirror` the session notes every key it writes in a
/// temporary table, and when the run reports a complete, clean list the last batch's
/// transaction also deletes the keys not noted, so the table equals the list.
struct PostgresSink: EventSink {
    let spec: PostgresSinkSpec
    let connection: PostgresConnection
    static let logger = PostgresCacheStore.quietLogger
    /// PostgreSQL's limit on the parameters of one statement.
    static let maximumParameters = 65_535

    /// What the committed transactions wrote, for the run's summary.
    private let delivered: DeliveryCount

    private init(spec: PostgresSinkSpec, connection: PostgresConnection) {
        self.spec = spec
        self.connection = connection
        delivered = DeliveryCount(TableDelivery(table: spec.table, database: spec.target.description))
    }

    var tableDelivery: TableDelivery? { delivered.value.withLock { $0 } }

    /// Connects (the password from the URL, else `PGPASSWORD`): a refused connection or a
    /// wrong password stops the run before anything is fetched.
    static func open(_ spec: PostgresSinkSpec, environment: [String: String]) async throws(ScreensPipeError) -> PostgresSink {
        var spec = spec
        spec.target = spec.target.resolvingPassword(environment: environment)
        let connection = try await PostgresConnector.connect(spec.target, purpose: "open the postgres sink")
        return PostgresSink(spec: spec, connection: connection)
    }

    func consume(_ events: EventSubscription) async throws(SinkFailure) {
        var batch: [SelectedRow] = []
        batch.reserveCapacity(spec.batchSize)
        var table = TableProgress()
        // A page an `on-response` rule skipped: its rows are missing, not gone.
        var skippedAPage = false
        do throws(ScreensPipeError) {
            for await event in events {
                switch event {
                case .response(let response) where response.action == ResponseAction.skipPage.rawValue:
                    skippedAPage = true
                case .selected(let row):
                    batch.append(row)
                    if batch.count >= spec.batchSize {
                        try await write(batch, table: &table, endsMirror: false)
                        batch.removeAll(keepingCapacity: true)
                    }
                case .finished(let finished)
                where spec.mode == .mirror && Self.deliveredTheWholeList(finished, skippedAPage: skippedAPage, afterEndList: spec.mirrorAfterEndList):
                    // The last rows and the deletes in one transaction: a crash before its commit
                    // leaves the previous rows, never a table missing rows the list still has.
                    try await write(batch, table: &table, endsMirror: true)
                    batch.removeAll()
                default:
                    continue
                }
            }
            if !batch.isEmpty { try await write(batch, table: &table, endsMirror: false) }
        } catch {
            throw .failed(error.message)
        }
    }

    /// Whether `finished` reports a run that delivered every row of the list: completed, no
    /// error, no row skipped as invalid and no page skipped by a rule (their keys would be
    /// deleted though the list has them), and not ended by an `end-list` rule unless the
    /// sink says such an end is the real one.
    static func deliveredTheWholeList(_ finished: RunFinished, skippedAPage: Bool, afterEndList: PostgresSinkSpec.MirrorAfterEndList) -> Bool {
        guard finished.reason == .completed, finished.succeeded, finished.errors == 0, (finished.skipped ?? 0) == 0, !skippedAPage else {
            return false
        }
        return finished.end != .responseAction || afterEndList == .delete
    }

    func close(succeeded: Bool) throws(SinkFailure) -> String? {
        // Every batch is committed already; closing only ends the session.
        // Held until the session has ended: a connection freed while still open is a bug to postgres-nio.
        let connection = connection
        let closing: EventLoopFuture<Void> = connection.close()
        closing.whenComplete { _ in withExtendedLifetime(connection) {} }
        return nil
    }

    // MARK: - Batches

    /// What the sink knows of its table across batches.
    struct TableProgress {
        /// The table's shape once known (from the first batch that reached the table).
        var shape: PostgresTableShape?
        /// `mirror`: whether the session's table of delivered keys exists yet.
        var tracksDeliveredKeys = false
    }

    /// Writes one batch in one transaction: upserts its rows, deletes the keys of its
    /// tombstones, and at the end of a mirror run deletes every key the run did not deliver.
    private func write(_ batch: [SelectedRow], table: inout TableProgress, endsMirror: Bool) async throws(ScreensPipeError) {
        let rows = Self.lastRowPerKey(batch, key: spec.key)
        let tombstones = spec.deleted.map { marker in rows.filter { marker.marks($0.item) } } ?? []
        let upserts = tombstones.isEmpty ? rows : rows.filter { row in !(spec.deleted?.marks(row.item) ?? false) }
        try await write(upserts: upserts, tombstones: tombstones, table: &table, endsMirror: endsMirror)
    }

    /// Writes `upserts` and deletes the keys of `tombstones` (each key once among both) in one
    /// transaction, with `alsoInTransaction` (a follow's last change number) run last in it.
    func write(
        upserts: [SelectedRow], tombstones: [SelectedRow], table: inout TableProgress, endsMirror: Bool,
        alsoInTransaction extra: [PostgresQuery] = []
    ) async throws(ScreensPipeError) {
        if table.shape == nil {
            // Deletes alone never create the table: with no table there is nothing to delete.
            if upserts.isEmpty, try await existingColumns().isEmpty {
                try await inTransaction(extra)
                return
            }
            table.shape = try await prepareTable(for: upserts)
        }
        guard var shape = table.shape else { return }
        if spec.columns == .auto { shape = try await addMissingColumns(for: upserts, to: shape) }
        table.shape = shape
        var statements = try statements(for: upserts, shape: shape)
        statements += try keyStatements(tombstones, shape: shape) { rows in
            "DELETE FROM \(PostgresIdentifier.quoted(qualified: spec.table)) WHERE (\(rows.columns)) IN (VALUES \(rows.tuples))"
        }
        if spec.mode == .mirror {
            if !table.tracksDeliveredKeys {
                try await run("note the keys this run delivers", PostgresQuery(unsafeSQL: Self.deliveredKeysTableSQL(shape: shape, table: spec.table)))
                table.tracksDeliveredKeys = true
            }
            statements += try keyStatements(upserts, shape: shape) { rows in
                "INSERT INTO pg_temp.\(Self.deliveredKeysTable) (\(rows.columns)) VALUES \(rows.tuples)"
            }
            if endsMirror {
                // Fresh statistics, so the planner joins the two tables by hashing, not row by row.
                statements.append(PostgresQuery(unsafeSQL: "ANALYZE pg_temp.\(Self.deliveredKeysTable)"))
                statements.append(PostgresQuery(unsafeSQL: Self.deleteUndeliveredSQL(shape: shape, table: spec.table)))
            }
        }
        statements += extra
        guard !statements.isEmpty else { return }
        do {
            try await connection.withTransaction(logger: Self.logger) { connection in
                for statement in statements { try await connection.query(statement, logger: Self.logger) }
            }
        } catch {
            throw await explain(error, rows: upserts, shape: shape)
        }
        // Counted once committed: a failed batch wrote nothing.
        delivered.value.withLock { delivery in
            delivery.upserted += upserts.count
            delivery.deleted += tombstones.count
            if spec.mode == .mirror, endsMirror { delivery.mirrored = true }
        }
    }

    private func inTransaction(_ statements: [PostgresQuery]) async throws(ScreensPipeError) {
        guard !statements.isEmpty else { return }
        do {
            try await connection.withTransaction(logger: Self.logger) { connection in
                for statement in statements { try await connection.query(statement, logger: Self.logger) }
            }
        } catch {
            throw PostgresConnector.failure(error, action: "write to \(spec.table)", target: spec.target, code: .sink)
        }
    }

    /// The session's own table of the keys a mirror run delivered: temporary, so it dies with
    /// the connection, and a run killed midway leaves nothing behind.
    static let deliveredKeysTable = "screens_pipe_delivered_keys"

    static func deliveredKeysTableSQL(shape: PostgresTableShape, table: String) -> String {
        let key = shape.key.map { PostgresIdentifier.quoted($0) }.joined(separator: ", ")
        return "CREATE TEMPORARY TABLE IF NOT EXISTS \(deliveredKeysTable) AS SELECT \(key) FROM \(PostgresIdentifier.quoted(qualified: table)) WITH NO DATA"
    }

    /// Deletes the rows whose key the run did not deliver.
    static func deleteUndeliveredSQL(shape: PostgresTableShape, table: String) -> String {
        let matches = shape.key.map { "delivered.\(PostgresIdentifier.quoted($0)) = target.\(PostgresIdentifier.quoted($0))" }
        return """
            DELETE FROM \(PostgresIdentifier.quoted(qualified: table)) AS target WHERE NOT EXISTS \
            (SELECT 1 FROM pg_temp.\(deliveredKeysTable) AS delivered WHERE \(matches.joined(separator: " AND ")))
            """
    }

    /// The key columns of `rows` as `VALUES` tuples, handed to `sql` as many rows at a time
    /// as the parameter limit allows.
    private func keyStatements(
        _ rows: [SelectedRow], shape: PostgresTableShape, _ sql: (_ rows: (columns: String, tuples: String)) -> String
    ) throws(ScreensPipeError) -> [PostgresQuery] {
        guard !rows.isEmpty else { return [] }
        let keyColumns = spec.key.compactMap { name in shape.columns.first { $0.name == name } }
        let columns = keyColumns.map { PostgresIdentifier.quoted($0.name) }.joined(separator: ", ")
        let rowsPerStatement = max(1, Self.maximumParameters / max(1, keyColumns.count))
        var statements: [PostgresQuery] = []
        var start = 0
        while start < rows.count {
            var bindings = PostgresBindings(capacity: min(rows.count - start, rowsPerStatement) * keyColumns.count)
            var tuples: [String] = []
            for row in rows[start..<min(rows.count, start + rowsPerStatement)] {
                var placeholders: [String] = []
                for column in keyColumns {
                    bindings.append(try parameter(of: row, for: column, shape: shape))
                    placeholders.append("$\(bindings.count)::\(column.type)")
                }
                tuples.append("(" + placeholders.joined(separator: ", ") + ")")
            }
            statements.append(PostgresQuery(unsafeSQL: sql((columns, tuples.joined(separator: ", "))), binds: bindings))
            start += rowsPerStatement
        }
        return statements
    }

    /// The rows with every key once (its last row), in list order of those rows.
    static func lastRowPerKey(_ batch: [SelectedRow], key: [String]) -> [SelectedRow] {
        var last: [[JSONValue?]: Int] = [:]
        for (position, row) in batch.enumerated() { last[key.map { row.item[$0] }] = position }
        guard last.count < batch.count else { return batch }
        return batch.enumerated().filter { position, row in last[key.map { row.item[$0] }] == position }.map(\.element)
    }

    /// Multi-row upserts of `rows`, as many statements as the parameter limit needs.
    private func statements(for rows: [SelectedRow], shape: PostgresTableShape) throws(ScreensPipeError) -> [PostgresQuery] {
        let columns = shape.columns
        let rowsPerStatement = max(1, Self.maximumParameters / max(1, columns.count))
        let table = PostgresIdentifier.quoted(qualified: spec.table)
        let names = columns.map { PostgresIdentifier.quoted($0.name) }.joined(separator: ", ")
        let conflict = shape.key.map { PostgresIdentifier.quoted($0) }.joined(separator: ", ")
        let updates = columns.filter { !shape.key.contains($0.name) }
            .map { "\(PostgresIdentifier.quoted($0.name)) = EXCLUDED.\(PostgresIdentifier.quoted($0.name))" }
        let onConflict = updates.isEmpty ? "DO NOTHING" : "DO UPDATE SET " + updates.joined(separator: ", ")
        var statements: [PostgresQuery] = []
        var start = 0
        while start < rows.count {
            let chunk = rows[start..<min(rows.count, start + rowsPerStatement)]
            var bindings = PostgresBindings(capacity: chunk.count * columns.count)
            var tuples: [String] = []
            tuples.reserveCapacity(chunk.count)
            for row in chunk {
                var placeholders: [String] = []
                for column in columns {
                    let value = try parameter(of: row, for: column, shape: shape)
                    bindings.append(value)
                    placeholders.append("$\(bindings.count)::\(column.type)")
                }
                tuples.append("(" + placeholders.joined(separator: ", ") + ")")
            }
            let sql = "INSERT INTO \(table) (\(names)) VALUES \(tuples.joined(separator: ", ")) ON CONFLICT (\(conflict)) \(onConflict)"
            statements.append(PostgresQuery(unsafeSQL: sql, binds: bindings))
            start += rowsPerStatement
        }
        return statements
    }

    private func parameter(of row: SelectedRow, for column: PostgresTableShape.Column, shape: PostgresTableShape) throws(ScreensPipeError) -> String? {
        guard case .object(let object) = row.item else {
            throw rowError(row, "is not an object (\(row.item.typeName)); the postgres sink writes objects")
        }
        let value = column.name == shape.documentColumn ? row.item : object[column.name]
        if shape.key.contains(column.name), value == nil || value == .null {
            throw rowError(row, "has no value for the key field '\(column.name)'")
        }
        do throws(PostgresTableShape.ValueProblem) {
            return try PostgresTableShape.parameter(value, for: column)
        } catch {
            throw rowError(row, "field '\(error.field)' \(error.why)")
        }
    }

    private func rowError(_ row: SelectedRow, _ what: String) -> ScreensPipeError {
        ScreensPipeError(.sink, "row \(row.row) (page \(row.page)) \(what); nothing of its batch was written to \(spec.table)", page: row.page, row: row.row)
    }

    /// After a failed batch: finds the first row PostgreSQL refuses (each row alone, in a
    /// transaction rolled back afterwards) so the error names it; else the batch's error.
    private func explain(_ error: any Error, rows: [SelectedRow], shape: PostgresTableShape) async -> ScreensPipeError {
        let batchError = PostgresConnector.failure(error, action: "write to \(spec.table)", target: spec.target, code: .sink)
        var culprit: (SelectedRow, ScreensPipeError)?
        _ = try? await connection.query("BEGIN", logger: Self.logger)
        for row in rows {
            guard let statement = try? statements(for: [row], shape: shape).first else { continue }
            _ = try? await connection.query("SAVEPOINT probe", logger: Self.logger)
            do {
                try await connection.query(statement, logger: Self.logger)
            } catch {
                culprit = (row, PostgresConnector.failure(error, action: "write to \(spec.table)", target: spec.target, code: .sink))
                break
            }
        }
        _ = try? await connection.query("ROLLBACK", logger: Self.logger)
        guard let culprit else { return batchError }
        return rowError(culprit.0, "was refused: \(culprit.1.message)")
    }

    // MARK: - The table

    /// The existing table's shape, checked against the pipeline, or a new table.
    private func prepareTable(for rows: [SelectedRow]) async throws(ScreensPipeError) -> PostgresTableShape {
        let existing = try await existingColumns()
        let documentColumn = spec.columns == .jsonb ? "row" : nil
        if existing.isEmpty { return try await createTable(for: rows, documentColumn: documentColumn) }
        let problem = { (what: String) in
            ScreensPipeError.sink("the table \(self.spec.table) exists with an incompatible shape: \(what); drop it, or name another table")
        }
        for name in spec.key where !existing.contains(where: { $0.name == name }) {
            throw problem("it has no column '\(name)' for the key")
        }
        if let documentColumn {
            guard existing.contains(where: { $0.name == documentColumn && $0.isJSON }) else {
                throw problem("columns: jsonb needs a jsonb column '\(documentColumn)'")
            }
        }
        guard try await hasUniqueIndex(on: spec.key) else {
            throw problem("no primary key or unique index on exactly (\(spec.key.joined(separator: ", "))), which the upsert needs")
        }
        let columns = documentColumn == nil ? existing : existing.filter { spec.key.contains($0.name) || $0.name == documentColumn }
        return PostgresTableShape(columns: columns, key: spec.key, documentColumn: documentColumn)
    }

    private func createTable(for rows: [SelectedRow], documentColumn: String?) async throws(ScreensPipeError) -> PostgresTableShape {
        let fields = documentColumn == nil ? PostgresTableShape.fieldNames(of: rows) : spec.key
        var columns: [PostgresTableShape.Column] = []
        for field in fields where PostgresIdentifier.isAcceptable(field) {
            let type = rows.lazy.compactMap { $0.item[field].flatMap(PostgresTableShape.columnType(for:)) }.first ?? "text"
            columns.append(.init(name: field, type: type))
        }
        for name in spec.key where !columns.contains(where: { $0.name == name }) {
            throw ScreensPipeError.sink("the key field '\(name)' is in none of the first rows; cannot create the table \(spec.table)")
        }
        if let documentColumn { columns.append(.init(name: documentColumn, type: "jsonb")) }
        let definitions = columns.map { "\(PostgresIdentifier.quoted($0.name)) \($0.type)" + (spec.key.contains($0.name) ? " NOT NULL" : "") }
        let key = spec.key.map { PostgresIdentifier.quoted($0) }.joined(separator: ", ")
        try await run(
            "create the table \(spec.table)",
            PostgresQuery(unsafeSQL: "CREATE TABLE IF NOT EXISTS \(PostgresIdentifier.quoted(qualified: spec.table)) (\(definitions.joined(separator: ", ")), PRIMARY KEY (\(key)))"))
        // Another process may have created it first, with other types: the table is what counts.
        return try await prepareTable(for: rows)
    }

    /// `auto`: fields of `rows` the table lacks become columns (typed from their values).
    private func addMissingColumns(for rows: [SelectedRow], to shape: PostgresTableShape) async throws(ScreensPipeError) -> PostgresTableShape {
        var shape = shape
        let known = Set(shape.columns.map(\.name))
        for field in PostgresTableShape.fieldNames(of: rows) where !known.contains(field) {
            guard PostgresIdentifier.isAcceptable(field) else {
                throw ScreensPipeError.sink("the field '\(field.prefix(80))' cannot be a column of \(spec.table) (more than 63 bytes, or control characters); rename it in convert.fields")
            }
            let type = rows.lazy.compactMap { $0.item[field].flatMap(PostgresTableShape.columnType(for:)) }.first ?? "text"
            try await run(
                "add the column \(field) to \(spec.table)",
                PostgresQuery(unsafeSQL: "ALTER TABLE \(PostgresIdentifier.quoted(qualified: spec.table)) ADD COLUMN IF NOT EXISTS \(PostgresIdentifier.quoted(field)) \(type)"))
            shape.columns.append(.init(name: field, type: type))
        }
        return shape
    }

    /// The table's columns and their types, in order; empty when there is no such table.
    private func existingColumns() async throws(ScreensPipeError) -> [PostgresTableShape.Column] {
        let name = PostgresIdentifier.quoted(qualified: spec.table)
        do {
            var columns: [PostgresTableShape.Column] = []
            let rows = try await connection.query(
                """
                SELECT attname::TEXT, format_type(atttypid, atttypmod) FROM pg_attribute
                WHERE attrelid = to_regclass(\(name)) AND attnum > 0 AND NOT attisdropped ORDER BY attnum
                """, logger: Self.logger)
            for try await (column, type) in rows.decode((String, String).self) { columns.append(.init(name: column, type: type)) }
            return columns
        } catch {
            throw PostgresConnector.failure(error, action: "read the columns of \(spec.table)", target: spec.target, code: .sink)
        }
    }

    /// Whether a unique index (the primary key counts) covers exactly `key`.
    private func hasUniqueIndex(on key: [String]) async throws(ScreensPipeError) -> Bool {
        let name = PostgresIdentifier.quoted(qualified: spec.table)
        let sorted = key.sorted()
        do {
            let rows = try await connection.query(
                """
                SELECT COUNT(*) FROM pg_index AS i
                WHERE i.indrelid = to_regclass(\(name)) AND i.indisunique AND i.indpred IS NULL
                    AND (SELECT array_agg(a.attname::TEXT ORDER BY a.attname::TEXT COLLATE "C") FROM pg_attribute AS a
                         WHERE a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)) = \(sorted)
                """, logger: Self.logger)
            for try await count in rows.decode(Int.self) { return count > 0 }
            return false
        } catch {
            throw PostgresConnector.failure(error, action: "read the indexes of \(spec.table)", target: spec.target, code: .sink)
        }
    }

    func run(_ action: String, _ query: PostgresQuery) async throws(ScreensPipeError) {
        do {
            try await connection.query(query, logger: Self.logger)
        } catch {
            throw PostgresConnector.failure(error, action: action, target: spec.target, code: .sink)
        }
    }
}

/// The sink's running ``TableDelivery``: batches are written on the sink's task, and the
/// summary read after it ended.
private final class DeliveryCount: Sendable {
    let value: Mutex<TableDelivery>

    init(_ initial: TableDelivery) {
        value = Mutex(initial)
    }
}
