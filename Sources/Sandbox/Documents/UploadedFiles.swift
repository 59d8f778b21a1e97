import ScreensJSON
import Synchronization

/// The file entries added through `/dlapp/add-file-entry` and the entries deleted through
/// `/dlapp/delete-file-entry` (stored or added), per sandbox; the portal properties that
/// bound an upload.
final class UploadedFiles: Sendable {
    /// The largest file accepted, in bytes: the portal's `dl.file.max.size` (and the
    /// request's `upload.servlet.request.impl.max.size`), 100 MB by default.
    let fileMaxSize: Int64
    /// The content types a file entry may have: the Documents and Media configuration's
    /// allowed MIME types. The sandbox allows images, PDF and plain text.
    let allowedMimeTypes: Set<String>

    private struct State {
        var added: [DocumentLibrary.FolderKey: [JSONValue]] = [:]
        var deleted: Set<Int64> = []
        var nextId: Int64 = 95001
    }

    private let state = Mutex(State())

    static let defaultFileMaxSize: Int64 = 104_857_600
    static let defaultMimeTypes: Set<String> = [
        "image/jpeg", "image/png", "image/gif", "image/webp", "image/bmp", "image/svg+xml", "application/pdf", "text/plain",
    ]

    init(fileMaxSize: Int64 = defaultFileMaxSize, allowedMimeTypes: Set<String> = defaultMimeTypes) {
        self.fileMaxSize = fileMaxSize
        self.allowedMimeTypes = allowedMimeTypes
    }

    /// `stored` without the deleted entries, then the added ones, oldest first.
    func merged(_ key: DocumentLibrary.FolderKey, stored: [JSONValue]) -> [JSONValue] {
        state.withLock { state in
            (stored + (state.added[key] ?? [])).filter { !state.deleted.contains($0["fileEntryId"]?.int64Value ?? 0) }
        }
    }

    /// Adds the entry `make` builds with a new id, unless `conflict` finds one of the
    /// folder's entries in the way (checked and added under one lock, as the portal's unique
    /// index does).
    func add(
        _ key: DocumentLibrary.FolderKey, stored: [JSONValue], conflict: ([JSONValue]) throws -> Void, make: (Int64) -> JSONValue
    ) throws -> JSONValue {
        try state.withLock { state in
            let current = (stored + (state.added[key] ?? [])).filter { !state.deleted.contains($0["fileEntryId"]?.int64Value ?? 0) }
            try conflict(current)
            let entry = make(state.nextId)
            state.nextId += 1
            state.added[key, default: []].append(entry)
            return entry
        }
    }

    /// Marks `fileEntryId` deleted; false when it already was.
    func delete(_ fileEntryId: Int64) -> Bool {
        state.withLock { $0.deleted.insert(fileEntryId).inserted }
    }

    /// The entry with `fileEntryId`, stored or added, unless deleted.
    func find(_ fileEntryId: Int64, stored: [DocumentLibrary.FolderKey: [JSONValue]]) -> JSONValue? {
        find(stored: stored) { $0["fileEntryId"]?.int64Value == fileEntryId }
    }

    /// The first entry, stored or added and not deleted, that `matches`.
    func find(stored: [DocumentLibrary.FolderKey: [JSONValue]], where matches: (JSONValue) -> Bool) -> JSONValue? {
        state.withLock { state in
            for rows in [stored, state.added] {
                for (_, entries) in rows {
                    for entry in entries where matches(entry) && !state.deleted.contains(entry["fileEntryId"]?.int64Value ?? 0) { return entry }
                }
            }
            return nil
        }
    }
}
