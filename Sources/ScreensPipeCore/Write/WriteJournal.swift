/// Each row's outcome, kept in the cache database next to the pages (its own table), so a
/// rerun skips what was done and resolves what a crash left undecided.
///
/// A row is `pending` from just before its request is sent until its answer is recorded;
/// a process killed in between leaves it `pending`, and the next run looks the entry up by
/// its key before it creates anything. Rows are identified by pipeline, target (server and
/// site, never credentials) and key.
///
/// The rules live here; where the records are kept is a ``WriteJournalStorage`` (the
/// SQLite cache database, from the `ScreensPipeSQLite` product).
package struct WriteJournal: Sendable {
    package enum State: String, Sendable {
        case pending, created, updated, unchanged
        /// The row deleted its entry (a comment's `op: delete`).
        case deleted
    }

    package struct Record: Sendable {
        package var state: State
        /// The stored values when the outcome was recorded (``JournaledRow/content``).
        package var content: String
        package var entryId: Int64?

        package init(state: State, content: String, entryId: Int64?) {
            self.state = state
            self.content = content
            self.entryId = entryId
        }
    }

    private let storage: any WriteJournalStorage
    /// Whether writers this journal never hears of may write the same target: replicas on
    /// several machines that take turns through a PostgreSQL run lock, each with a journal
    /// of its own. Rows this journal does not know are then looked up by key before they
    /// are created (architecture.md, "Running twice at once").
    var othersMayWrite = false
    /// The keys whose records ``records()`` reads, when not all (``scoped(to:)``).
    private var keys: Set<String>?

    package init(storage: any WriteJournalStorage) {
        self.storage = storage
    }

    /// This journal reading the records of `keys` only, afresh each time: what a writer sees
    /// of a journal other processes write meanwhile (a shared outbox's sync, one write at a time).
    func scoped(to keys: Set<String>) -> WriteJournal {
        var scoped = self
        scoped.keys = keys
        return scoped
    }

    /// Every recorded row of this pipeline and target (of ``scoped(to:)``'s keys), by key,
    /// with those an earlier version recorded in the legacy form.
    func records() async throws(ScreensPipeError) -> JournalRecords {
        guard let keys else {
            let (current, legacy) = try await storage.records()
            return JournalRecords(current: current, legacy: legacy)
        }
        let (current, legacy) = try await storage.records(keys: keys)
        return JournalRecords(current: current, legacy: legacy)
    }

    /// Moves an entry an earlier version recorded (``JournalRecords/claimLegacy(_:)``) to the
    /// current form, in one transaction: the legacy row is gone once the current one exists.
    func migrate<Row: JournaledRow>(_ row: Row, _ record: Record) async throws(ScreensPipeError) {
        try await storage.migrate(key: row.key, line: row.line, legacyKey: row.legacyKey, record: record)
    }

    /// Records rows' states in one transaction: all of them or none.
    func record<Row: JournaledRow>(_ entries: [(row: Row, state: State, entryId: Int64?)]) async throws(ScreensPipeError) {
        guard !entries.isEmpty else { return }
        try await storage.record(entries.map { entry in
            JournalEntry(key: entry.row.key, line: entry.row.line, state: entry.state, content: entry.row.content, entryId: entry.entryId)
        })
    }

    /// Puts back what the journal knew of an entry before a request about it was refused:
    /// the entry exists, with the values and id it had, so the next run updates it instead
    /// of creating a second one. (Only a refused create may be forgotten.)
    func restore<Row: JournaledRow>(_ row: Row, to record: Record) async throws(ScreensPipeError) {
        try await storage.restore(key: row.key, to: record)
    }

    /// Undoes the pending mark of a row whose request the portal refused: what the journal
    /// knew before (`before`, when it knew the entry) is put back, else the row is forgotten.
    func refused<Row: JournaledRow>(_ row: Row, before: Record?) async throws(ScreensPipeError) {
        if let before, before.state != .pending {
            try await restore(row, to: before)
        } else {
            try await forget([row])
        }
    }

    /// Forgets every row this pipeline and target keep pending (`write --forget-pending`),
    /// after the user checked on the portal that their requests were not carried out: a row
    /// without an entry id is forgotten (the next run creates it), and one with an id (an
    /// update) keeps its entry with unknown values (the next run updates it). Returns how
    /// many rows it changed.
    func forgetPending() async throws(ScreensPipeError) -> Int {
        try await storage.forgetPending()
    }

    /// Forgets a row that was pending and then refused by the portal: nothing was created.
    func forget<Row: JournaledRow>(_ rows: [Row]) async throws(ScreensPipeError) {
        guard !rows.isEmpty else { return }
        try await storage.forget(keys: rows.map(\.key))
    }
}

/// One row's outcome as the storage keeps it.
package struct JournalEntry: Sendable {
    package var key: String
    package var line: Int
    package var state: WriteJournal.State
    package var content: String
    package var entryId: Int64?
}

/// Where a ``WriteJournal`` keeps the records of one pipeline and target (a table of the
/// cache database). Each method is one transaction.
package protocol WriteJournalStorage: Sendable {
    /// The records by key: the current form, and those an earlier version wrote.
    func records() async throws(ScreensPipeError) -> (current: [String: WriteJournal.Record], legacy: [String: WriteJournal.Record])
    /// Stores `record` under `key` (unless one is there) and removes the legacy row of `legacyKey`.
    func migrate(key: String, line: Int, legacyKey: String, record: WriteJournal.Record) async throws(ScreensPipeError)
    /// Inserts or updates every entry, keeping a known entry id when an entry has none.
    func record(_ entries: [JournalEntry]) async throws(ScreensPipeError)
    /// Overwrites the record of `key`.
    func restore(key: String, to record: WriteJournal.Record) async throws(ScreensPipeError)
    /// Forgets pending rows without an entry id and marks those with one as updated with
    /// unknown content; returns how many rows changed.
    func forgetPending() async throws(ScreensPipeError) -> Int
    /// Removes the records of `keys`.
    func forget(keys: [String]) async throws(ScreensPipeError)
    /// The records of `keys` only (and every legacy record, whose keys are in another form).
    func records(keys: Set<String>) async throws(ScreensPipeError)
        -> (current: [String: WriteJournal.Record], legacy: [String: WriteJournal.Record])
}

extension WriteJournalStorage {
    package func records(keys: Set<String>) async throws(ScreensPipeError)
        -> (current: [String: WriteJournal.Record], legacy: [String: WriteJournal.Record])
    {
        let (current, legacy) = try await records()
        return (current.filter { keys.contains($0.key) }, legacy)
    }
}

/// A row as the journal knows it: what identifies the entry, and what it holds.
protocol JournaledRow: Sendable {
    /// The input line (or list position) the row came from.
    var line: Int { get }
    /// The declared key fields' values (``WriteKey/encode(_:)``): the same text for the same
    /// entry, and a different text for a different one.
    var key: String { get }
    /// The values the portal stores, to tell a changed row from one already written.
    var content: String { get }
    /// ``key`` as journals of earlier versions wrote it (the same when its form never changed).
    var legacyKey: String { get }
    /// ``content`` as journals of earlier versions wrote it.
    var legacyContent: String { get }
}

extension JournaledRow {
    var legacyKey: String { key }
    var legacyContent: String { content }
}

/// What the journal knows of a pipeline and target: the records by key, and those an
/// earlier version wrote with keys in the legacy form, until a row claims them.
struct JournalRecords: Sendable {
    private var current: [String: WriteJournal.Record]
    private var legacy: [String: WriteJournal.Record]

    init(current: [String: WriteJournal.Record] = [:], legacy: [String: WriteJournal.Record] = [:]) {
        self.current = current
        self.legacy = legacy
    }

    /// The record of the entry with this key (current form).
    subscript(key: String) -> WriteJournal.Record? {
        get { current[key] }
        set { current[key] = newValue }
    }

    /// The legacy record of `row`'s entry, when the journal has none in the current form:
    /// moved to the current form (its content too, when it holds the row's values), so it
    /// answers for this row only. The legacy form could not tell some rows apart; the
    /// first of them gets the record, and the others are new entries, never its entry.
    mutating func claimLegacy<Row: JournaledRow>(_ row: Row) -> WriteJournal.Record? {
        guard current[row.key] == nil, var record = legacy.removeValue(forKey: row.legacyKey) else { return nil }
        if record.content == row.legacyContent { record.content = row.content }
        current[row.key] = record
        return record
    }
}

extension BookmarkRow: JournaledRow {}
