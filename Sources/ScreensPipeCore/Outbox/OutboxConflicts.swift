import ScreensBus

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// An entry as the portal holds it now, for a pending update about to be sent.
enum RemoteEntry {
    /// The service's lookup does not list whole entries, so no version can be compared.
    case unknown
    /// No entry has the row's key any more (deleted on the portal).
    case missing
    /// The entry, as the portal lists it, and its id.
    case found(JSONValue, id: Int64)
}

/// Reads the portal's current entry of a pending update, and makes the journal take it.
protocol PendingUpdateChecker: Sendable {
    func remoteEntry(for value: JSONValue) async throws(ScreensPipeError) -> RemoteEntry
    /// Records the portal's values as the entry's written content (`keep-remote`), so a
    /// later write of the same values is `unchanged` and of others an update.
    func adoptRemote(_ remote: JSONValue, id: Int64) async throws(ScreensPipeError)
}

/// The checker of a JSON-WS service: its own lookup by key (a bookmark folder's
/// `get-entries`), which lists whole entries for bookmarks.
struct ModelUpdateChecker<Model: JSONWSWriteModel>: PendingUpdateChecker {
    let model: Model
    let transport: JSONWSBookmarkTransport
    let journal: WriteJournal

    func remoteEntry(for value: JSONValue) async throws(ScreensPipeError) -> RemoteEntry {
        let row: Model.Row
        do throws(RowRejection) { row = try model.row(value, line: 0) } catch { return .unknown }
        guard let found = try await model.lookup([row], transport: transport) else { return .unknown }
        guard let entry = found[row.key] else { return .missing }
        guard let remote = entry.remote else { return .unknown }
        return .found(remote, id: entry.id)
    }

    func adoptRemote(_ remote: JSONValue, id: Int64) async throws(ScreensPipeError) {
        let row: Model.Row
        do throws(RowRejection) { row = try model.row(remote, line: 0) } catch { return }
        try await journal.record([(row: row, state: WriteJournal.State.updated, entryId: Optional(id))])
    }

    /// The checker for `sink`'s service.
    static func make(sink: LiferaySinkSpec, transport: JSONWSBookmarkTransport, journal: WriteJournal) -> (any PendingUpdateChecker)? {
        switch sink.service {
        case .bookmark:
            return ModelUpdateChecker<BookmarkWriteModel>(model: BookmarkWriteModel(spec: sink), transport: transport, journal: journal)
        case .webContent:
            return ModelUpdateChecker<WebContentWriteModel>(model: WebContentWriteModel(spec: sink), transport: transport, journal: journal)
        case .ddlRecord:
            guard let recordSetId = sink.recordSetId else { return nil }
            return ModelUpdateChecker<DDLRecordWriteModel>(
                model: DDLRecordWriteModel(spec: sink, recordSetId: recordSetId), transport: transport, journal: journal)
        case .custom, .comment, .image:
            return nil
        }
    }
}

/// The conflicts file (`NAME.conflicts.jsonl`, `outbox sync --conflicts PATH`): one JSON
/// line per reported conflict, appended, 0600: the key, the version the write was based on
/// and the portal's, the pending row and the portal's entry.
struct ConflictsFile {
    let path: String

    func append(_ record: JSONValue) throws(ScreensPipeError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ScreensPipeError.io("cannot write the conflicts file \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let bytes = record.jsonBytes + [UInt8(ascii: "\n")]
        var written = 0
        while written < bytes.count {
            let result = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if result < 0, errno == EINTR { continue }
            guard result > 0 else {
                throw ScreensPipeError.io("cannot write the conflicts file \(path): \(String(cString: strerror(errno)))")
            }
            written += result
        }
    }
}
