import ScreensBus
import Synchronization

/// Decides, row by row, whether an incremental run delivers a row, and tracks the cursor
/// the run will commit.
///
/// A row is delivered when its cursor value is past the stored cursor, or equal to it and
/// not among the rows the last run delivered with that value (the boundary, by digest of
/// the raw row); with a lookback, when it is past the stored cursor moved back by it. A row
/// past `end` is never delivered. The new cursor is the largest value delivered.
///
/// The loader delivers pages one at a time, so rows come here in list order; the lock
/// only makes the gate safe to share with the task that commits.
final class CursorGate: Sendable {
    let spec: IncrementalSpec
    /// The cursor the run started from (the stored one, else `initial`), nil for all rows.
    let startCursor: CursorValue?
    private let previous: CursorPosition?
    private let progress: Mutex<Progress>

    private struct Progress {
        var largest: CursorValue?
        var boundary: Set<String> = []
        var delivered = 0
        /// The last value seen, in list order, for a list sorted newest first.
        var previousInOrder: CursorValue?
        var endedEarly = false
    }

    /// Whether the server sorts the list newest first by the cursor, so that a page wholly
    /// behind the cursor ends the list.
    let endsEarly: Bool

    /// A gate from the committed position (nil: a first run, or `--full-refresh`).
    init(spec: IncrementalSpec, state: CursorPosition?, endsEarly: Bool = false) {
        self.spec = spec
        self.endsEarly = endsEarly
        previous = state
        startCursor = state?.cursor ?? spec.initial
        progress = Mutex(Progress())
    }

    /// The lowest value a run reads: the start cursor moved back by the lookback. Rows equal
    /// to it may still be due (see the type's description), so a server is asked for rows
    /// at or after it.
    var lowerBound: CursorValue? { startCursor.map { $0.movedBack(by: spec.lookback) } }

    /// Whether `raw` (and its converted `item`, for a converted-row cursor) is delivered.
    /// Throws a conversion error when the row's cursor is missing or of the wrong type.
    func admits(raw: JSONValue, item: JSONValue?) throws(ScreensPipeError) -> Bool {
        let row = spec.row == .raw ? raw : (item ?? raw)
        guard let found = spec.cursor.resolve(in: row), !found.isNull else {
            throw ScreensPipeError.conversion("the incremental cursor '\(spec.cursor)' is missing from the \(spec.row.rawValue) row")
        }
        let value = try CursorValue.read(found, as: spec.type, path: spec.cursor)
        if let end = spec.end, value > end { return false }
        var digest: String?
        if let startCursor, let lowerBound {
            if spec.lookback != nil {
                if value <= lowerBound { return false }
            } else if value < startCursor {
                return false
            } else if value == startCursor {
                // Only the committed state's boundary is known to be delivered; `initial`
                // means "after this value".
                guard let previous, previous.cursor == value else { return false }
                let rowDigest = CacheKey.digest(raw.jsonString)
                if previous.boundary.contains(rowDigest) { return false }
                digest = rowDigest
            }
        }
        progress.withLock { progress in
            progress.delivered += 1
            guard let largest = progress.largest, value <= largest else {
                progress.largest = value
                progress.boundary = [digest ?? CacheKey.digest(raw.jsonString)]
                return
            }
            if value == largest { progress.boundary.insert(digest ?? CacheKey.digest(raw.jsonString)) }
        }
        return true
    }

    /// The state to commit when the run completes: the largest delivered value and the
    /// rows delivered with it (merged with the previous boundary when the cursor did not
    /// move), or the previous state when nothing new came.
    var nextState: CursorPosition? {
        let progress = progress.withLock { $0 }
        guard let largest = progress.largest else {
            return previous ?? startCursor.map { CursorPosition(cursor: $0, boundary: []) }
        }
        if let previous, previous.cursor == largest {
            return CursorPosition(cursor: largest, boundary: previous.boundary.union(progress.boundary))
        }
        return CursorPosition(cursor: largest, boundary: progress.boundary)
    }

    /// For a list sorted newest first: whether every row of page `index` is behind the
    /// cursor (older than it, or at or before it minus the lookback), which ends the list.
    /// A row newer than the one before it means the server did not sort as asked: a
    /// pagination error, since ending early would then skip rows.
    func endsList(afterPage rows: [JSONValue], index: Int) throws(ScreensPipeError) -> Bool {
        guard endsEarly, let startCursor, let lowerBound else { return false }
        var behind = !rows.isEmpty
        for raw in rows {
            guard let found = spec.cursor.resolve(in: raw), !found.isNull else { return false }
            let value = try CursorValue.read(found, as: spec.type, path: spec.cursor)
            let outOfOrder = progress.withLock { progress -> Bool in
                defer { progress.previousInOrder = value }
                return progress.previousInOrder.map { value > $0 } ?? false
            }
            if outOfOrder {
                throw ScreensPipeError.pagination(
                    "page \(index) is not sorted newest first by '\(spec.cursor)', so the list cannot end at the cursor: the portal does not honour the modified-date comparator",
                    page: index)
            }
            if spec.lookback != nil ? value > lowerBound : value >= startCursor { behind = false }
        }
        if behind { progress.withLock { $0.endedEarly = true } }
        return behind
    }

    /// The largest value delivered so far and the rows delivered with it (nil: none yet):
    /// what a resume checkpoint keeps, so that the resumed run commits the cursor of the
    /// whole output, not only of the pages it delivered itself.
    var deliveredPosition: CursorPosition? {
        progress.withLock { progress in progress.largest.map { CursorPosition(cursor: $0, boundary: progress.boundary) } }
    }

    /// Continues from a checkpoint's ``deliveredPosition``, before any row of this run.
    func resume(from position: CursorPosition?) {
        guard let position else { return }
        progress.withLock { progress in
            progress.largest = position.cursor
            progress.boundary = position.boundary
        }
    }

    /// Whether ``endsList(afterPage:index:)`` ended the list.
    var endedEarly: Bool { progress.withLock { $0.endedEarly } }

    /// Rows this gate let through so far.
    var delivered: Int { progress.withLock { $0.delivered } }
}
