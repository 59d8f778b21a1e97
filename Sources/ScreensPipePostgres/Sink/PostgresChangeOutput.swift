import ScreensBus
import ScreensPipeCore
internal import PostgresNIO

/// `run --follow` into a `postgres` sink (`mode: upsert`): each batch of changes is one
/// transaction that upserts the `added` and `updated` rows, deletes the keys of the `deleted`
/// ones (and of rows the sink's `deleted:` marker picks), and records the batch's last change
/// number in `screens_pipe_follow_sequences` under the follower's name and the table.
///
/// The follow commits a batch as pending before it writes it and asks ``lastSequence()``
/// after a crash: the number committed with the rows says exactly which changes the table
/// holds, so a follow killed at any moment and started again applies each change once.
final class PostgresChangeOutput: ClosableChangeOutput, @unchecked Sendable {  // used by the one follow task
    private let sink: PostgresSink
    private let follower: String
    private var table = PostgresSink.TableProgress()

    /// The table of each followed output's last change number.
    static let sequencesTable = "screens_pipe_follow_sequences"

    init(sink: PostgresSink, follower: String) {
        self.sink = sink
        self.follower = follower
    }

    func lastSequence() async throws(ScreensPipeError) -> Int64? {
        try await sink.run(
            "create the table \(Self.sequencesTable)",
            PostgresQuery(
                unsafeSQL: "CREATE TABLE IF NOT EXISTS \(Self.sequencesTable) (follower text NOT NULL, target text NOT NULL, sequence bigint NOT NULL, PRIMARY KEY (follower, target))"))
        let target = sink.spec.table
        do {
            let rows = try await sink.connection.query(
                "SELECT sequence FROM screens_pipe_follow_sequences WHERE follower = \(follower) AND target = \(target)", logger: PostgresSink.logger)
            for try await sequence in rows.decode(Int64.self) { return sequence }
            return 0
        } catch {
            throw PostgresConnector.failure(error, action: "read the last change \(sink.spec.table) holds", target: sink.spec.target, code: .sink)
        }
    }

    func write(_ changes: [ListChange]) async throws(ScreensPipeError) {
        guard let last = changes.last else { return }
        var upserts: [SelectedRow] = []
        var tombstones: [SelectedRow] = []
        for (index, change) in changes.enumerated() {
            switch change.kind {
            case .added, .updated:
                guard let item = change.item else {
                    throw ScreensPipeError.sink("change \(change.sequence) (\(change.kind.rawValue)) carries no row to write to \(sink.spec.table)")
                }
                let row = SelectedRow(pipeline: follower, page: 0, row: index, item: item)
                if sink.spec.deleted?.marks(item) ?? false { tombstones.append(row) } else { upserts.append(row) }
            case .deleted:
                // The key object holds the sink's key fields: the follow is keyed by them.
                tombstones.append(SelectedRow(pipeline: follower, page: 0, row: index, item: change.key))
            }
        }
        let target = sink.spec.table
        let record: PostgresQuery = """
            INSERT INTO screens_pipe_follow_sequences (follower, target, sequence) VALUES (\(follower), \(target), \(last.sequence)) \
            ON CONFLICT (follower, target) DO UPDATE SET sequence = EXCLUDED.sequence
            """
        try await sink.write(upserts: upserts, tombstones: tombstones, table: &table, endsMirror: false, alsoInTransaction: [record])
    }

    func close() async {
        try? await sink.connection.close().get()
    }
}

extension PostgresSinkSpec: ChangeSinkConfiguration {
    package var changeKeyFields: [String] { key }

    package func openChangeOutput(follower: String, environment: [String: String]) async throws(ScreensPipeError) -> any ClosableChangeOutput {
        guard mode == .upsert else {
            throw ScreensPipeError.configuration(
                "a followed postgres sink applies each change (deleted rows included) in mode: upsert; mode: mirror is for runs that load the whole list")
        }
        return PostgresChangeOutput(sink: try await PostgresSink.open(self, environment: environment), follower: follower)
    }
}
