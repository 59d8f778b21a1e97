import ScreensBus
import ScreensPipeCore

/// `sink: { type: postgres, ... }`, as the core's ``SinkType`` registry knows it: the keys,
/// their schema, the decoding and the opening all live with the sink.
struct PostgresSinkType: SinkType {
    var name: String { "postgres" }
    var summary: String { "postgres upserts them into a table" }
    var ownKeys: [String] { ["url", "tls", "ca-file", "table", "key", "columns", "batch-size", "mode", "mirror-after-end-list", "deleted"] }

    var schemaValues: [String: JSONValue] {
        typealias Schema = PipelineSchema
        return [
            "url": Schema.string("postgres: the database, postgres://user@host:port/database (password from ${ENV} or PGPASSWORD)."),
            "tls": Schema.enumeration(PostgresTarget.TLSMode.allCases.map(\.rawValue), "postgres: TLS (default prefer; require verifies the certificate)."),
            "ca-file": Schema.string("postgres: a PEM file of the certificate authorities to trust."),
            "table": Schema.string("postgres: the table (schema.table allowed), created when missing."),
            "key": [
                "anyOf": [["type": "string", "minLength": 1], ["type": "array", "items": ["type": "string", "minLength": 1], "minItems": 1]],
                "description": "postgres: the fields whose values identify a row (the upsert key).",
            ],
            "columns": Schema.enumeration(PostgresSinkSpec.ColumnMode.allCases.map(\.rawValue), "postgres: one column per field (auto) or the row in one jsonb column."),
            "batch-size": Schema.integer(1, PostgresSinkSpec.maximumBatchSize, "postgres: rows per transaction (default 500)."),
            "mode": Schema.enumeration(
                PostgresSinkSpec.WriteMode.allCases.map(\.rawValue),
                "postgres: upsert (default) keeps keys the run did not deliver; mirror deletes them after a complete run, so the table equals the list."),
            "mirror-after-end-list": Schema.enumeration(
                PostgresSinkSpec.MirrorAfterEndList.allCases.map(\.rawValue),
                "postgres, mode mirror: after a list an on-response end-list rule ended, keep (default) deletes nothing; delete treats it as complete."),
            "deleted": [
                "type": "object", "additionalProperties": false, "required": ["field", "equals"],
                "properties": [
                    "field": ["type": "string", "minLength": 1, "description": "A top-level field of the converted row."],
                    "equals": ["description": "The value (or list of values) that marks the row deleted, such as 8 (Liferay's in-trash status)."],
                ],
                "description": "postgres: rows whose field has this value delete their key from the table instead of being written.",
            ],
        ]
    }

    func decode(_ section: Section, decoder: SpecDecoder) -> (any SinkConfiguration)? {
        decoder.decodePostgresSink(section)
    }
}

extension PostgresSinkSpec: SinkConfiguration {
    package var typeName: String { "postgres" }

    package var describedMembers: [(String, YAMLTextWriter.Value)] {
        // The URL without its password.
        [("type", .raw("postgres")), ("url", .string(target.description)), ("tls", .raw(target.tls.rawValue)),
         ("table", .string(table)), ("key", .string(key.joined(separator: ", "))),
         ("columns", .raw(columns.rawValue)), ("batch-size", .raw("\(batchSize)")), ("mode", .raw(mode.rawValue))]
            + (mode == .mirror ? [("mirror-after-end-list", .raw(mirrorAfterEndList.rawValue))] : [])
            + (deleted.map { [("deleted", .string("\($0.field) = \($0.values.map(\.jsonString).joined(separator: " | "))"))] } ?? [])
    }

    package func open(environment: [String: String]) async throws(ScreensPipeError) -> any EventSink {
        try await PostgresSink.open(self, environment: environment)
    }
}

extension SinkDestination {
    /// Rows upserted into a PostgreSQL table by a key (`type: postgres`).
    public static func postgres(_ spec: PostgresSinkSpec) -> SinkDestination {
        .registered(RegisteredSink(spec))
    }

    /// The PostgreSQL sink's spec, when this destination is one.
    public var postgres: PostgresSinkSpec? {
        guard case .registered(let sink) = self else { return nil }
        return sink.configuration as? PostgresSinkSpec
    }
}
