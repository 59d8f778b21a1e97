import ScreensBus

/// How an incremental cursor reaches the server, per source type.
///
/// - `liferay-headless`: `filter=<field> ge <cursor>` (joined to the pipeline's own filter
///   with `and`) and `sort=<field>:asc`. `ge`, not `gt`: rows that share the cursor value
///   with the last delivered row but were written after it must still come; the boundary
///   digests drop the ones already delivered.
/// - `rest`: every query value that says `{cursor}` gets the cursor; on a first run (no
///   cursor) those parameters are left out.
/// - `liferay-jsonws` `get-articles` and bookmarks `get-entries`: sorted newest first by the
///   service's modified-date comparator; the list ends at the first page wholly behind the
///   cursor.
/// - every other type (other JSON-WS services, file): nothing is sent; every row is read and
///   the cursor is applied client-side.
///
/// Only a cursor read in the raw row can be pushed: the converted row's names are not the
/// server's.
enum IncrementalPushDown {
    /// The placeholder a `rest` query value names the cursor with.
    static let placeholder = "{cursor}"

    /// How `spec`'s cursor reaches the server.
    enum Mode: Equatable {
        /// A headless filter on this field.
        case headlessFilter(field: String)
        /// REST query values with ``placeholder``.
        case restQuery
        /// JSON-WS sorted newest first by this comparator class, ending early.
        case jsonwsNewestFirst(comparator: String)
        /// Not pushed; the reason, for `plan`.
        case clientSide(reason: String)
    }

    static func mode(for spec: PipelineSpec) -> Mode {
        guard let incremental = spec.incremental else { return .clientSide(reason: "not incremental") }
        let settings = spec.source.type.settings
        if settings is HeadlessSourceSpec {
            guard incremental.row == .raw, incremental.cursor.components.count == 1,
                case .key(let field) = incremental.cursor.components[0]
            else {
                return .clientSide(reason: "the cursor is not a top-level field of the raw row, so the server cannot filter on it")
            }
            return .headlessFilter(field: field)
        }
        if let rest = settings as? RESTSourceSpec {
            guard rest.query.contains(where: { $0.value.contains(placeholder) }) else {
                return .clientSide(reason: "no query value says \(placeholder)")
            }
            guard incremental.row == .raw else {
                return .clientSide(reason: "a query can only name a cursor read in the raw row")
            }
            return .restQuery
        }
        if let jsonws = settings as? JSONWSSourceSpec, let comparator = modifiedDateComparators[jsonws.rows.service] {
            guard jsonws.sort == nil else {
                return .clientSide(reason: "the pipeline sorts with its own comparator, so the list cannot end early")
            }
            guard incremental.row == .raw, incremental.type == .date, incremental.cursor.description == "modifiedDate" else {
                return .clientSide(reason: "only a raw modifiedDate date cursor follows the modified-date comparator")
            }
            return .jsonwsNewestFirst(comparator: comparator)
        }
        return .clientSide(reason: "a \(settings.typeName) source has no generic filter; every row is read")
    }

    /// The modified-date comparator of each JSON-WS list service it is used with (from
    /// liferay-portal's `journal-api` and `bookmarks-api` util.comparator packages). JSON-WS
    /// instantiates `+obc` with the class's no-argument constructor, which sorts newest first
    /// (`this(false)`); it cannot set the comparator's private `ascending` field, so
    /// `obc.ascending: false` is sent only to say the same thing to a reader of the request.
    static let modifiedDateComparators: [String: String] = [
        "/journal.journalarticle/get-articles": "com.liferay.journal.util.comparator.ArticleModifiedDateComparator",
        "/bookmarks.bookmarksentry/get-entries": "com.liferay.bookmarks.util.comparator.EntryModifiedDateComparator",
    ]

    /// The comparator parameter of services whose every 7.x signature names it other than
    /// `obc` (BookmarksEntryService.getEntries: `orderByComparator` from 7.0 on).
    static let comparatorParameters: [String: String] = [
        "/bookmarks.bookmarksentry/get-entries": "orderByComparator",
    ]

    /// `spec` with the cursor `lowerBound` pushed to its source, and whether it was.
    static func apply(_ spec: PipelineSpec, lowerBound: CursorValue?) -> (spec: PipelineSpec, pushed: Bool) {
        var pushed = spec
        switch mode(for: spec) {
        case .headlessFilter(let field):
            guard let lowerBound, var headless = spec.source.type.settings(as: HeadlessSourceSpec.self) else { return (spec, false) }
            let condition = "\(field) ge \(literal(lowerBound))"
            let userFilter = headless.query.last { $0.name == "filter" }?.value
            headless.query.removeAll { $0.name == "filter" || $0.name == "sort" }
            headless.query.append(QueryParameter(name: "filter", value: userFilter.map { "(\($0)) and \(condition)" } ?? condition))
            headless.query.append(QueryParameter(name: "sort", value: "\(field):asc"))
            pushed.source.type = .liferayHeadless(headless)
            return (pushed, true)
        case .restQuery:
            guard var rest = spec.source.type.settings(as: RESTSourceSpec.self) else { return (spec, false) }
            rest.query = rest.query.compactMap { parameter in
                guard parameter.value.contains(placeholder) else { return parameter }
                guard let lowerBound else { return nil }
                let value = parameter.value.replacing(placeholder, with: lowerBound.text)
                return QueryParameter(name: parameter.name, text: parameter.text.isSecret ? .secret(Secret(value)) : .text(value))
            }
            pushed.source.type = .rest(rest)
            return (pushed, lowerBound != nil)
        case .jsonwsNewestFirst(let comparator):
            guard var jsonws = spec.source.type.settings(as: JSONWSSourceSpec.self) else { return (spec, false) }
            jsonws.sort = comparator
            // A `sort-param` the pipeline chose stays; the default `obc` follows the service.
            if jsonws.sortParam == "obc", let parameter = comparatorParameters[jsonws.rows.service] {
                jsonws.sortParam = parameter
            }
            jsonws.rows.params["\(jsonws.sortParam).ascending"] = .bool(false)
            pushed.source.type = .liferayJSONWS(jsonws)
            return (pushed, lowerBound != nil)
        case .clientSide:
            return (spec, false)
        }
    }

    /// The cursor as an OData literal: dates and numbers bare, text quoted with `''` for `'`.
    private static func literal(_ value: CursorValue) -> String {
        switch value {
        case .date, .integer: value.text
        case .string(let text): "'" + text.replacing("'", with: "''") + "'"
        }
    }

    /// One line for `plan`.
    static func planLine(for spec: PipelineSpec) -> String {
        switch mode(for: spec) {
        case .headlessFilter(let field):
            "# incremental: pushed to the server as filter=\(field) ge <cursor> (and the pipeline's filter), sort=\(field):asc; rows delivered before are dropped by digest"
        case .restQuery:
            "# incremental: pushed to the server in the query values that say \(placeholder); left out on a first run"
        case .jsonwsNewestFirst(let comparator):
            "# incremental: sorted newest first by \(comparator); the run ends (end: cursor) at the first page whose rows are all older than the cursor"
        case .clientSide(let reason):
            "# incremental: client-side only (\(reason))"
        }
    }
}
