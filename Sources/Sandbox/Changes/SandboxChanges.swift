import ScreensJSON
import Synchronization

/// Which list a batch of changes edits.
public enum SandboxChangeList: String, Sendable, Hashable, CaseIterable {
    /// The bookmarks of the Guest site's root folder (JSON-WS `get-entries` with groupId 20143
    /// and folderId 0, REST `/rest/bookmarks/...`).
    case bookmarks
    /// The web content articles of the Guest site (JSON-WS `get-articles`, headless
    /// structured contents).
    case articles
}

/// One batch of changes: `add` new rows, `modify` existing ones and `delete` others, chosen
/// from `seed` (the same seed on the same data chooses the same rows).
public struct SandboxChangeRequest: Sendable, Hashable {
    /// The list changed.
    public var list: SandboxChangeList
    /// Chooses the rows modified and deleted.
    public var seed: UInt64
    /// Rows appended at the end of the list.
    public var add: Int
    /// Rows whose `modifiedDate` (and name or title) change in place.
    public var modify: Int
    /// Rows removed.
    public var delete: Int
    /// Give every row of the batch the same `modifiedDate`, so tests can put equal cursor
    /// values on both sides of a page boundary. Otherwise each row gets its own second.
    public var sameTime: Bool
    /// Give every row of the batch the `modifiedDate` of the previous batch's last change:
    /// rows written "in the same second" as rows an incremental run already delivered.
    public var atPreviousTime = false

    /// A batch on `list`; nothing changes unless told.
    public init(list: SandboxChangeList, seed: UInt64 = 1, add: Int = 0, modify: Int = 0, delete: Int = 0, sameTime: Bool = false) {
        self.list = list
        self.seed = seed
        self.add = add
        self.modify = modify
        self.delete = delete
        self.sameTime = sameTime
    }
}

/// What a batch did: the ids it touched (`entryId` of bookmarks, `resourcePrimKey` of
/// articles, which headless calls `id`) and the sandbox clock after it.
public struct SandboxChangeReport: Sendable, Hashable {
    /// Rows added, in list order.
    public var added: [Int64] = []
    /// Rows modified, in the order chosen.
    public var modified: [Int64] = []
    /// Rows deleted, in the order chosen.
    public var deleted: [Int64] = []
    /// The `modifiedDate` of the last change, epoch milliseconds.
    public var clock: Int64 = 0

    /// The report as the control endpoint answers it.
    public var json: JSONValue {
        [
            "added": .array(added.map(JSONValue.int)), "modified": .array(modified.map(JSONValue.int)),
            "deleted": .array(deleted.map(JSONValue.int)), "clock": .int(clock),
        ]
    }
}

/// The sandbox's data as it changes over time, shared by every request of one server.
///
/// The clock starts one second after the newest `modifiedDate` of the data and only moves
/// forward, in whole seconds (headless dates have whole seconds), so every change is newer
/// than everything before it and an incremental cursor sees it.
final class SandboxChanges: Sendable {
    /// The control endpoint: `POST /_sandbox/changes?list=bookmarks&seed=S&add=N&modify=M&delete=K[&same-time=true|previous]`.
    static let path = "/_sandbox/changes"
    /// The most rows one batch may touch, so a request cannot make the sandbox grow unbounded.
    static let maximumPerBatch = 100_000

    private struct State {
        var portal: Portal
        var clock: Int64
        /// Tombstones of the bookmarks deleted so far (``TrashedBookmarks``).
        var trash = TrashedBookmarks()
    }

    private let state: Mutex<State>

    init(portal: Portal) {
        let newest = Self.newestModifiedDate(portal.data)
        state = Mutex(State(portal: portal, clock: (newest / 1000 + 1) * 1000))
    }

    /// The portal as it is now.
    var portal: Portal { state.withLock { $0.portal } }

    /// The deleted bookmarks as Liferay's trash keeps them, oldest deletion first.
    var trashedBookmarks: [JSONValue] { state.withLock { $0.trash.rows } }

    /// Applies one batch atomically: a request sees the data before it or after it.
    func apply(_ request: SandboxChangeRequest) throws(SandboxError) -> SandboxChangeReport {
        for (name, value) in [("add", request.add), ("modify", request.modify), ("delete", request.delete)] {
            guard (0...Self.maximumPerBatch).contains(value) else {
                throw SandboxError("'\(name)' must be between 0 and \(Self.maximumPerBatch), found \(value)")
            }
        }
        return try state.withLock { (state) throws(SandboxError) -> SandboxChangeReport in
            var data = state.portal.data
            var clock = state.clock
            var editor = ListEditor(request: request, clock: clock)
            switch request.list {
            case .bookmarks:
                // Bookmarks are served from the entries table, which writes change too.
                var rows = state.portal.entries.rows(groupId: 20143, folderId: 0)
                try editor.edit(&rows, id: "entryId", rename: "name")
                state.trash.record(editor.removed, deletedAt: editor.batchTime)
                state.portal.entries.replaceRows(groupId: 20143, folderId: 0, with: rows)
            case .articles:
                var rows = data.articles
                try editor.edit(&rows)
                data.articles = rows
            }
            clock = editor.clock
            state.clock = clock
            state.portal = Portal(data: data, generated: state.portal.generated, hideEvery: state.portal.hideEvery, entries: state.portal.entries,
                written: state.portal.written, writtenRecords: state.portal.writtenRecords)
            var report = editor.report
            report.clock = clock - 1000
            return report
        }
    }

    /// Answers the control endpoint.
    func respond(to request: SandboxRequest) -> SandboxResponse {
        guard request.method == "POST" else {
            var response = SandboxResponse.text(405, "Method Not Allowed\n")
            response.headers.append(("Allow", "POST"))
            return response
        }
        do {
            guard let listName = request.query["list"], let list = SandboxChangeList(rawValue: listName) else {
                return .json(400, ["error": .string("'list' must be one of \(SandboxChangeList.allCases.map(\.rawValue).joined(separator: ", "))")])
            }
            let seed = try request.query.integer("seed") ?? 1
            let change = SandboxChangeRequest(
                list: list, seed: UInt64(truncatingIfNeeded: seed), add: try request.query.integer("add") ?? 0,
                modify: try request.query.integer("modify") ?? 0, delete: try request.query.integer("delete") ?? 0,
                sameTime: request.query["same-time"] == "true")
            var batch = change
            batch.atPreviousTime = request.query["same-time"] == "previous"
            return .json(200, try apply(batch).json)
        } catch let error as InvalidQueryParameter {
            return .json(400, ["error": .string("'\(error.name)' must be an integer, found '\(error.value)'")])
        } catch let error as SandboxError {
            return .json(400, ["error": .string(error.message)])
        } catch {
            return .json(500, ["error": .string("\(error)")])
        }
    }

    private static func newestModifiedDate(_ data: PortalData) -> Int64 {
        var newest: Int64 = 0
        for folders in data.bookmarks.values {
            for rows in folders.values { for row in rows { newest = max(newest, row["modifiedDate"]?.int64Value ?? 0) } }
        }
        for article in data.articles { newest = max(newest, article.row["modifiedDate"]?.int64Value ?? 0) }
        return newest
    }
}

/// New ids after the largest ordinary one: the sample data holds ids at the edge of 64 bits
/// on purpose, which a plain `max + 1` would overflow.
private struct FreshIds {
    private var taken: Set<Int64>
    private var candidate: Int64

    init(taken ids: [Int64]) {
        taken = Set(ids)
        candidate = (ids.filter { $0 < 1 << 53 }.max() ?? 0) + 1
    }

    mutating func next() -> Int64 {
        while taken.contains(candidate) { candidate += 1 }
        taken.insert(candidate)
        return candidate
    }
}

/// Applies one batch to one list: deletes first, then modifies, then adds, each row chosen
/// by a seeded generator (SplitMix64) so a seed always makes the same changes.
private struct ListEditor {
    let request: SandboxChangeRequest
    var clock: Int64
    var report = SandboxChangeReport()
    /// The rows deleted, as they were.
    var removed: [JSONValue] = []
    private var random: UInt64
    /// The clock when the batch began: newer than every row before it.
    let batchTime: Int64

    init(request: SandboxChangeRequest, clock: Int64) {
        self.request = request
        self.clock = clock
        random = request.seed
        batchTime = clock
    }

    private mutating func next() -> UInt64 {
        random &+= 0x9E37_79B9_7F4A_7C15
        var z = random
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private mutating func index(below count: Int) -> Int { Int(next() % UInt64(count)) }

    /// The next `modifiedDate`: one shared second for a same-time batch, else a new second each.
    private mutating func tick() -> Int64 {
        if request.atPreviousTime { return batchTime - 1000 }
        if request.sameTime {
            clock = batchTime + 1000
            return batchTime
        }
        defer { clock += 1000 }
        return clock
    }

    private func checkSize(_ count: Int) throws(SandboxError) {
        guard request.delete <= count else { throw SandboxError("cannot delete \(request.delete) of \(count) rows") }
        guard request.modify <= count - request.delete else {
            throw SandboxError("cannot modify \(request.modify) of the \(count - request.delete) rows left")
        }
    }

    /// Picks `count` distinct positions of a list of `size` rows, in the order chosen.
    private mutating func pick(_ count: Int, of size: Int) -> [Int] {
        var chosen: [Int] = []
        var taken = Set<Int>()
        while chosen.count < count {
            let position = index(below: size)
            if taken.insert(position).inserted { chosen.append(position) }
        }
        return chosen
    }

    mutating func edit(_ rows: inout [JSONValue], id: String, rename: String) throws(SandboxError) {
        try checkSize(rows.count)
        for position in pick(request.delete, of: rows.count).sorted(by: >) {
            report.deleted.append(rows[position][id]?.int64Value ?? 0)
            removed.append(rows.remove(at: position))
        }
        for position in pick(request.modify, of: rows.count) {
            let time = tick()
            rows[position] = Self.updating(rows[position], ["modifiedDate": .int(time)], renaming: rename, suffix: " (edited)")
            report.modified.append(rows[position][id]?.int64Value ?? 0)
        }
        guard request.add > 0 else { return }
        guard let template = rows.last else { throw SandboxError("cannot add to an empty list") }
        var ids = FreshIds(taken: rows.compactMap { $0[id]?.int64Value })
        for _ in 0..<request.add {
            let nextId = ids.next()
            let time = tick()
            let row = Self.updating(
                template, [id: .int(nextId), "createDate": .int(time), "modifiedDate": .int(time), rename: .string("Added \(nextId)")],
                renaming: nil, suffix: "")
            rows.append(row)
            report.added.append(nextId)
        }
    }

    mutating func edit(_ articles: inout [Article]) throws(SandboxError) {
        let site = articles.indices.filter { articles[$0].groupId == 20143 }
        try checkSize(site.count)
        for choice in pick(request.delete, of: site.count).map({ site[$0] }).sorted(by: >) {
            report.deleted.append(articles[choice].row["resourcePrimKey"]?.int64Value ?? 0)
            articles.remove(at: choice)
        }
        let remaining = articles.indices.filter { articles[$0].groupId == 20143 }
        for choice in pick(request.modify, of: remaining.count).map({ remaining[$0] }) {
            let time = tick()
            articles[choice].row = Self.updating(articles[choice].row, ["modifiedDate": .int(time)], renaming: nil, suffix: "")
            report.modified.append(articles[choice].row["resourcePrimKey"]?.int64Value ?? 0)
        }
        guard request.add > 0 else { return }
        guard let template = remaining.last.map({ articles[$0] }) else { throw SandboxError("cannot add to an empty list") }
        var keys = FreshIds(taken: articles.compactMap { $0.row["resourcePrimKey"]?.int64Value })
        var ids = FreshIds(taken: articles.compactMap { $0.row["id"]?.int64Value })
        for _ in 0..<request.add {
            let nextKey = keys.next()
            let nextId = ids.next()
            let time = tick()
            var article = template
            article.row = Self.updating(
                template.row,
                [
                    "resourcePrimKey": .int(nextKey), "id": .int(nextId), "articleId": .string(String(nextKey)),
                    "urlTitle": .string("added-\(nextKey)"), "createDate": .int(time), "modifiedDate": .int(time),
                ], renaming: nil, suffix: "")
            articles.append(article)
            report.added.append(nextKey)
        }
    }

    /// `row` with `values` set (in place when the member exists) and `renaming` suffixed.
    private static func updating(_ row: JSONValue, _ values: JSONObject, renaming: String?, suffix: String) -> JSONValue {
        guard case .object(var object) = row else { return row }
        for (key, value) in values { object[key] = value }
        if let renaming, let name = object[renaming]?.stringValue, !name.hasSuffix(suffix) { object[renaming] = .string(name + suffix) }
        return .object(object)
    }
}

extension SandboxServer {
    /// Changes the server's data now, as `POST /_sandbox/changes` does: for in-process tests
    /// that need rows added, modified or deleted between (or during) runs.
    @discardableResult
    public func applyChanges(_ request: SandboxChangeRequest) throws(SandboxError) -> SandboxChangeReport {
        try state.router.changes.apply(request)
    }
}
