import ScreensBus

/// What a session needs to know of its pipeline's `liferay` sink to edit its list: whether
/// it can, how an edit becomes a row to write, and how a row of the list is found by key.
/// Kept as functions so that the state machine stays free of the sink's types and of I/O.
struct SessionEditRules: Sendable {
    /// An edit as a row `screens-pipe write` takes, and the sink's key of that row.
    struct Prepared: Sendable, Hashable {
        var row: JSONValue
        var key: String
    }

    /// Why the session cannot edit its list (no `liferay` sink...); nil when it can.
    var refusal: String?
    /// The write row of an edit, or why the sink refuses it (a missing `url`...).
    var prepare: @Sendable (SessionEdit) -> Result<Prepared, SessionCommandError>
    /// The sink's key of a row as the list's source returned it; nil when it has none.
    var listKey: @Sendable (JSONValue) -> String?
    /// The row field that names the version an update or delete was read at
    /// (`modifiedDate`): copied from the listed row, so a sync can detect a conflict.
    var versionField: String?

    /// Rules that refuse every edit, saying why.
    static func refusing(_ reason: String) -> SessionEditRules {
        SessionEditRules(
            refusal: reason, prepare: { _ in .failure(SessionCommandError(message: reason)) }, listKey: { _ in nil }, versionField: nil)
    }

    /// A session on a pipeline that writes nowhere.
    static let noSink = refusing(
        "this pipeline has no sink of type liferay, so its list cannot be edited: add one (see the Sessions guide) or write with screens-pipe write")
}

extension ListSessionStateMachine.Listing {
    /// Whether a page is asked for or on its way: the pages may not be replaced meanwhile.
    var isLoading: Bool {
        awaitsPages || slots.values.contains { slot in
            if case .fetching = slot { return true }
            return false
        }
    }
}

extension ListSessionStateMachine {
    /// One edit on its way to the portal (or the outbox): carried out by the driver, which
    /// reports it with ``edited(_:_:)``.
    struct EditTicket: Hashable, Sendable {
        var id: JSONValue?
        var edit: SessionEdit
        /// The load the edit was made in; a refresh meanwhile is impossible (the driver
        /// carries an edit out before it reads the next command).
        var load: Int
        /// The row `screens-pipe write` takes, and its key.
        var prepared: SessionEditRules.Prepared
        /// `update` and `delete`: the row's index in the whole list, and the row as listed.
        var position: Int?
        var listed: JSONValue?
    }

    /// How the write of an edit ended.
    enum EditResult: Sendable, Hashable {
        /// Sent: `created`, `updated`, `deleted` or `unchanged`, with the entry as the portal
        /// lists it when it could be read back.
        case written(outcome: String, entry: JSONValue?)
        /// Kept in the outbox; the reason when a send failed.
        case pending(reason: String?)
        /// A delete of an entry whose add was still pending: neither is sent.
        case cancelled
        /// Nothing was written or kept.
        case failed(ScreensPipeError)
    }

    /// The raw row an edit leaves in the list, and the change it makes to the list's pages;
    /// nil when it changes nothing. The one rule for the session's pages and the cache's.
    static func listChange(_ ticket: EditTicket, _ result: EditResult) -> (change: ListEdit.Change, row: JSONValue?)? {
        let written: JSONValue?
        switch result {
        case .failed: return nil
        case .cancelled: written = nil
        case .pending: written = nil
        case .written(let outcome, _) where outcome == "unchanged" && ticket.edit.name == "add": return nil
        case .written(_, let entry): written = entry
        }
        switch ticket.edit {
        case .add:
            // A pending add has no entry yet (no id the list's rows all have): it joins the
            // list once a sync creates it. A made-up id would be a value the portal never had.
            guard let written else { return nil }
            return (.append(written), written)
        case .update(let given):
            guard let position = ticket.position else { return nil }
            // Pending (or not read back): the listed row with the edited values, so the
            // fields the portal keeps (the id, the dates) are still there to convert.
            var row = ticket.listed ?? given
            if written == nil, case .object(var merged) = row, case .object(let values) = given {
                for (name, value) in values { merged[name] = value }
                row = .object(merged)
            }
            if let written { row = written }
            return (.replace(at: position, with: row), row)
        case .delete:
            guard let position = ticket.position else { return nil }
            return (.remove(at: position), nil)
        }
    }

    /// The first step of an edit: checked against the list, then handed to the driver.
    func beginEdit(_ edit: SessionEdit, id: JSONValue?, in listing: inout Listing) -> [Action] {
        func refuse(_ message: String) -> [Action] {
            listing.totals.errors += 1
            return [.emit([SessionEvent(.pipeline(.error(ListError(pipeline: pipeline, kind: Totals.commandKind, message: message))), id: id)])]
        }
        if let refusal = editRules.refusal { return refuse(refusal) }
        if listing.chain != nil {
            return refuse("the list is chained (each page names the next), so a row cannot be put in or taken out of its pages in place: write with screens-pipe write and refresh")
        }
        if listing.isLoading {
            return refuse("pages of the list are still loading: send the edit once they have arrived")
        }
        let prepared: SessionEditRules.Prepared
        switch editRules.prepare(edit) {
        case .failure(let error): return refuse(error.message)
        case .success(let ready): prepared = ready
        }
        var ticket = EditTicket(id: id, edit: edit, load: listing.load, prepared: prepared)
        if case .add = edit {} else {
            let rows = loadedRun(in: listing).flatMap(\.rows)
            guard let position = rows.firstIndex(where: { editRules.listKey($0) == prepared.key }) else {
                return refuse("no row with this key is on a page loaded in this session: load its page first (a session edits the rows it shows)")
            }
            let listed = rows[position]
            ticket.position = position
            ticket.listed = listed
            // The version the row was read at goes with it, so that a sync can tell when
            // the portal changed the entry meanwhile (a conflict).
            if let field = editRules.versionField, case .object(var row) = prepared.row, row[field] == nil,
                let version = listed[field], !version.isNull
            {
                row[field] = version
                ticket.prepared.row = .object(row)
            }
        }
        return [.edit(ticket)]
    }

    /// The write ended: the list changes as the edit says and the client gets `edited`.
    func finishEdit(_ ticket: EditTicket, _ result: EditResult, in listing: inout Listing) -> [Action] {
        if case .failed(let error) = result {
            let event = error.event(pipeline: pipeline)
            listing.totals.record(event)
            return [.emit([SessionEvent(.pipeline(.error(event)), id: ticket.id)])]
        }
        let outcome: String
        var reason: String?
        switch result {
        case .written(let written, _): outcome = written
        case .pending(let why): (outcome, reason) = ("pending", why)
        case .cancelled: outcome = "cancelled"
        case .failed: return []
        }
        var answer = SessionEdited(pipeline: pipeline, op: ticket.edit.name, outcome: outcome, reason: reason)
        let before = loadedRun(in: listing)
        if case .delete = ticket.edit, let position = ticket.position {
            answer.row = position
            answer.page = shownRow(position, in: listing)?.page
            answer.item = shownRow(position, in: listing)?.item
        }
        if let change = Self.listChange(ticket, result)?.change, !before.isEmpty {
            let complete = listing.endIndex == before.count
            let after = ListEdit(change: change, pagination: pagination).apply(to: before, complete: complete)
            relist(after, replacing: before.count, in: &listing)
            switch change {
            case .append:
                let total = after.reduce(0) { $0 + $1.rowsInPage }
                answer.row = complete ? Optional(total - 1) : after.first?.rowCount.map { $0 - 1 }
            case .replace(let position, _):
                answer.row = position
            case .remove:
                break
            }
        }
        if case .delete = ticket.edit {
            // Where the row was, said above.
        } else if let row = answer.row {
            let shown = shownRow(row, in: listing)
            answer.page = shown?.page ?? pageIndex(ofRow: row)
            answer.item = shown?.item
        }
        answer.rowCount = loadedRun(in: listing).first?.rowCount
        return [.emit([SessionEvent(.edited(answer), id: ticket.id)])]
    }

    /// The loaded pages from page 0 on, up to the first page that is not loaded.
    func loadedRun(in listing: Listing) -> [FetchedPage] {
        var pages: [FetchedPage] = []
        while case .loaded(let page, _)? = listing.slots[pages.count] { pages.append(page.page) }
        return pages
    }

    /// Puts `pages` in place of the first `count` loaded pages: converted again, their
    /// ending rules applied again from page 0 (the row count changed), and any page after
    /// them dropped, since its rows moved (it is fetched again when asked for).
    func relist(_ pages: [FetchedPage], replacing count: Int, in listing: inout Listing) {
        var shown: [Int: Bool] = [:]
        for (index, slot) in listing.slots {
            if case .loaded(_, let wasShown) = slot { shown[index] = wasShown }
        }
        for index in Array(listing.slots.keys) where index >= pages.count || index < count {
            listing.slots[index] = nil
        }
        var ending = IndexedListEnding(pagination: pagination, requestsPageSize: requestsPageSize)
        for page in pages {
            _ = ending.accept(page)
            listing.slots[page.request.index] = .loaded(LoadedPage(page, stages: rowStages, pipeline: pipeline), shown: shown[page.request.index] ?? true)
        }
        listing.ending = ending
        listing.endIndex = ending.endIndex
        listing.asked = listing.asked.filter { $0 < max(1, pages.count) }
        listing.cursor = min(listing.cursor, max(0, pages.count - 1))
        listing.pageZeroAnswered = !pages.isEmpty
    }

    /// The shown row with index `row` in the whole list, when a loaded page has it.
    private func shownRow(_ row: Int, in listing: Listing) -> SelectedRow? {
        for case .loaded(let page, _) in listing.slots.values {
            if let selected = page.row(row) { return selected }
        }
        return nil
    }

    /// The page that holds row `row` of the whole list.
    private func pageIndex(ofRow row: Int) -> Int {
        if row < pagination.firstPageSize { return 0 }
        return 1 + (row - pagination.firstPageSize) / max(1, pagination.pageSize)
    }
}
