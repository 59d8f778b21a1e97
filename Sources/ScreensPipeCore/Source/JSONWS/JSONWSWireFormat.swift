import ScreensBus

/// Liferay JSON-WS, the protocol Liferay Screens speaks: one batch `POST
/// /api/jsonws/invoke` per page, with the count command added to page 0's batch.
struct JSONWSWireFormat: WireFormat {
    let spec: JSONWSSourceSpec
    let baseURL: String
    /// The pipeline's `convert.locale`, sent as `locale` to the services that take one when
    /// the command does not name it itself.
    var locale: String? = nil

    /// The Screens services whose signatures take a `locale` (the portal localizes their
    /// answers with it): `ScreensAssetEntryService.getAssetEntries` and
    /// `ScreensDDLRecordService.getDDLRecords` in liferay/liferay-screens' portal module,
    /// and `ScreensJournalArticleService.getJournalArticleContent`.
    static let servicesTakingLocale: Set<String> = [
        "/screens.screensassetentry/get-asset-entries",
        "/screens.screensddlrecord/get-ddl-records",
        "/screens.screensjournalarticle/get-journal-article-content",
    ]

    var endpoint: String { JSONWSBatch.endpoint(baseURL) }

    var summary: String { "liferay-jsonws \(redactedURL(baseURL)) \(spec.rows.service)" }

    func request(for page: PageRequest) throws(ScreensPipeError) -> HTTPRequest {
        var rowsParams = Self.flatten(spec.rows.params)
        Self.addSecrets(of: spec.rows, to: &rowsParams)
        if let locale, Self.servicesTakingLocale.contains(spec.rows.service), rowsParams["locale"] == nil {
            rowsParams["locale"] = .string(locale)
        }
        rowsParams[spec.startParam] = .int(Int64(page.startRow))
        rowsParams[spec.endParam] = .int(Int64(page.endRow))
        if let sort = spec.sort {
            rowsParams[spec.sortParam] = nil
            rowsParams["+" + spec.sortParam] = .string(sort)
        }
        var commands = [(service: spec.rows.service, params: rowsParams)]
        var secretValues = spec.rows.secrets.values.map(\.revealed)
        if page.includesRowCount, let count = spec.count {
            var countParams = Self.flatten(count.params)
            Self.addSecrets(of: count, to: &countParams)
            secretValues += count.secrets.values.map(\.revealed)
            commands.append((count.service, countParams))
        }
        var request = JSONWSBatch.request(commands, baseURL: baseURL)
        request.secretValues = secretValues
        return request
    }

    /// The transport is where the command's secret parameters are unwrapped, in name order.
    private static func addSecrets(of call: ServiceCall, to params: inout JSONObject) {
        for (name, secret) in call.secrets.sorted(by: { $0.key < $1.key }) {
            params[name] = .string(secret.revealed)
        }
    }

    /// The batch answers one result per command; the rows are the first.
    func rowsPath(for page: PageRequest) -> [JSONPathStep]? { [.index(0)] }

    func decode(_ body: JSONValue, response: HTTPResponse, page: PageRequest) throws(ScreensPipeError) -> DecodedPage {
        guard case .array(let results) = body, let first = results.first else {
            throw ScreensPipeError.malformedResponse("expected a JSON array with one result per command, found \(body.typeName)")
        }
        guard case .array(let rows) = first else {
            throw ScreensPipeError(
                .malformedResponse, "expected an array of rows from \(spec.rows.service), found \(first.typeName)")
        }
        var rowCount: Int?
        if page.includesRowCount, let count = spec.count {
            guard results.count > 1, let value = Self.integer(results[1]) else {
                throw ScreensPipeError(
                    .malformedResponse, "expected an integer row count from \(count.service), found \(results.count > 1 ? results[1].typeName : "nothing")")
            }
            rowCount = value
        }
        return DecodedPage(rows: rows, rowCount: rowCount)
    }

    private static func integer(_ value: JSONValue) -> Int? {
        if let exact = value.int64Value { return Int(exact) }
        if case .string(let text) = value { return Int(text) }
        return nil
    }

    /// JSON-WS takes object parameters flattened: `{"entryQuery": {"$type": "X", "start": 0}}`
    /// becomes `"+entryQuery": "X"` and `"entryQuery.start": 0`. Keys already written that way
    /// pass through.
    static func flatten(_ params: JSONObject) -> JSONObject {
        // Positions by name, so a name written twice (`a.b` and `a: {b:}`) keeps its first
        // place and last value in linear time; JSONObject's own lookup scans.
        var names: [String] = []
        var values: [JSONValue] = []
        var positions: [String: Int] = [:]
        func put(_ name: String, _ value: JSONValue) {
            if let position = positions[name] {
                values[position] = value
            } else {
                positions[name] = names.count
                names.append(name)
                values.append(value)
            }
        }
        func add(prefix: String, _ object: JSONObject) {
            for (key, value) in object {
                if key == "$type" {
                    if let type = value.stringValue { put("+\(prefix)", .string(type)) }
                    continue
                }
                let name = prefix.isEmpty ? key : "\(prefix).\(key)"
                if case .object(let nested) = value {
                    add(prefix: name, nested)
                } else {
                    put(name, value)
                }
            }
        }
        add(prefix: "", params)
        var flat = JSONObject(minimumCapacity: names.count)
        for (name, value) in zip(names, values) { flat.appendUnchecked(key: name, value: value) }
        return flat
    }
}
