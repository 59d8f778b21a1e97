internal import Foundation
import ScreensBus

/// Copies of the files of uploads kept in the outbox, as Screens' image gallery keeps an
/// `ImageEntryUpload` (the image itself) in its cache until `SyncManager` sends it: the
/// upload a sync sends is the file as it was when the write was kept, whatever happens to
/// the original meanwhile.
///
/// Each kept upload has a directory of its own holding the file under its own name (the
/// portal's `sourceFileName`), beside the cache database: `outbox-files/<pipeline and
/// target digest>/<uuid>/<name>`. A copy lives as long as an outbox entry names it;
/// ``sweep(keeping:)``, run under the write lock after every write, sync, discard and
/// clear, removes the others (a collapsed upload's, a synced one's, one left by a run
/// killed between the copy and the keep).
struct UploadSpool: Sendable {
    /// The spool's directory: the files directory of the rows the outbox keeps.
    let directory: String

    /// The spool of `pipeline`'s outbox for `target`, beside the cache in `place`; an error
    /// for a PostgreSQL cache, whose outbox a fleet shares: its replicas share no disk.
    init(place: RunLock.Place, pipeline: String, target: String) throws(ScreensPipeError) {
        guard case .directory(let parent) = place else {
            throw ScreensPipeError.configuration(
                "uploads kept in the outbox keep a copy of their file on this machine, and a PostgreSQL cache's outbox is shared by a fleet: upload images with 'write-policy: remote-only', or keep the outbox in SQLite")
        }
        directory = parent + "/outbox-files/" + SHA256.hexDigest(pipeline + "\n" + target, characters: 24)
    }

    /// Makes ``directory`` when it is not there yet: a sync reads kept rows from it, and a
    /// pipeline may have kept none with a file (DDL records without documents).
    func ensureExists() throws(ScreensPipeError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw ScreensPipeError.io("cannot make the outbox's directory of upload copies \(directory): \(error.localizedDescription)")
        }
    }

    /// Copies the file at `path` into a directory of its own; the copy's path relative to
    /// ``directory``, for the kept row's `file`.
    func keep(_ path: String) throws(ScreensPipeError) -> String {
        let name = String(path.split(separator: "/").last ?? "file")
        let relative = UUID().uuidString.lowercased() + "/" + name
        let files = FileManager.default
        do {
            try files.createDirectory(atPath: directory + "/" + relative.prefix { $0 != "/" }, withIntermediateDirectories: true)
            // Streamed by the file system, never whole in memory.
            try files.copyItem(atPath: path, toPath: directory + "/" + relative)
        } catch {
            throw ScreensPipeError.io("cannot keep a copy of \(path) for the outbox in \(directory): \(error.localizedDescription)")
        }
        return relative
    }

    /// The `file` members of a kept row: an image row's own, and a DDL record's documents'
    /// (fields of the row, of its `fields` or of its `modelValues`).
    static func files(named row: JSONValue) -> [String] {
        guard case .object(let members) = row else { return [] }
        var files: [String] = []
        if let file = members["file"]?.stringValue { files.append(file) }
        for (_, member) in members {
            guard case .object(let inner) = member else { continue }
            if let file = inner["file"]?.stringValue { files.append(file) }
            for (_, field) in inner { if let file = field["file"]?.stringValue { files.append(file) } }
        }
        return files
    }

    /// Removes every copy no entry of `entries` names; copies that cannot be removed stay
    /// for the next sweep.
    func sweep(keeping entries: [OutboxEntry]) {
        let files = FileManager.default
        guard let kept = try? files.contentsOfDirectory(atPath: directory) else { return }
        var named = Set<String>()
        for entry in entries {
            guard let row = try? JSONValue(parsing: Array(entry.row.utf8)) else { continue }
            for file in Self.files(named: row) { named.insert(String(file.prefix { $0 != "/" })) }
        }
        for item in kept where !named.contains(item) {
            try? files.removeItem(atPath: directory + "/" + item)
        }
    }
}
