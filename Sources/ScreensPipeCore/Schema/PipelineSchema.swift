import ScreensBus

/// The JSON Schema (draft-07) of pipeline files, for editors (yaml-language-server) and CI.
///
/// Built from the decoder's own key tables (``SpecKeys``, the source types and paginate
/// styles) and the enums the decoder reads (models, policies, formats), so a key the
/// decoder accepts is a key the schema lists. The schema describes the shape; `validate`
/// still checks what a schema cannot (ranges across keys, filter expressions, paths).
/// `screens-pipe schema` prints it; `docs/schemas/pipeline.schema.json` is that output.
public enum PipelineSchema {
    /// The schema as pretty-printed JSON text, ending with a newline.
    public static var text: String { JSONPrettyText.text(document) + "\n" }

    /// Keys in the decoder's tables that have no value description here; empty when the
    /// schema is complete (a test keeps it so).
    static var undescribedKeys: [String] {
        var missing: [String] = []
        _ = build(missing: &missing)
        return missing
    }

    /// The schema document.
    public static var document: JSONValue {
        var missing: [String] = []
        return build(missing: &missing)
    }

    private static func build(missing: inout [String]) -> JSONValue {
        func object(_ table: String, _ keys: [String], required: [String] = []) -> JSONValue {
            var properties = JSONObject()
            for key in keys {
                if let value = values["\(table).\(key)"]
                    ?? (table == "sink" ? sinkValue(key) : nil)
                {
                    properties[key] = value
                } else {
                    missing.append("\(table).\(key)")
                }
            }
            var schema: JSONObject = ["type": "object", "additionalProperties": false, "properties": .object(properties)]
            if !required.isEmpty { schema["required"] = .array(required.map { .string($0) }) }
            return .object(schema)
        }

        var source = object("source", SpecKeys.source, required: ["type"]).objectValue ?? [:]
        source["allOf"] = .array(SourceRegistry.builtIn.map { type in
            variant(key: "type", value: type.typeName, keys: type.allowedKeys, required: type.requiredKeys)
        })

        let styles = SpecDecoder.PaginateStyle.allCases
        var allStyleKeys = ["style"]
        for style in styles { for key in style.keys where !allStyleKeys.contains(key) { allStyleKeys.append(key) } }
        var paginateObject = object("paginate", allStyleKeys, required: ["style"]).objectValue ?? [:]
        paginateObject["allOf"] = .array(styles.map { variant(key: "style", value: $0.rawValue, keys: ["style"] + $0.keys, required: []) })

        var auth = object("auth", SpecKeys.auth).objectValue ?? [:]
        auth["oneOf"] = [["required": ["basic"]], ["required": ["bearer"]], ["required": ["oauth2"]], ["required": ["cookie"]]]

        let definitions: JSONObject = [
            "source": .object(source),
            "pagination": object("pagination", SpecKeys.pagination),
            "auth": .object(auth),
            "basic": object("basic", SpecKeys.basicAuth, required: ["username", "password"]),
            "oauth2": object("oauth2", SpecKeys.oauth2Auth, required: ["client-id"]),
            "cookie": object("cookie", SpecKeys.cookieAuth, required: ["username", "password"]),
            "rateLimit": object("rateLimit", SpecDecoder.rateLimitKeys, required: ["requests"]),
            "responseRule": object("responseRule", SpecDecoder.responseRuleKeys, required: ["action"]),
            "responseRuleJSON": object("responseRuleJSON", SpecDecoder.responseRuleJSONKeys, required: ["path", "equals"]),
            "retry": object("retry", SpecKeys.retry),
            "serviceCall": object("serviceCall", SpecKeys.serviceCall, required: ["service"]),
            "paginate": [
                "anyOf": [enumeration(styles.map(\.rawValue)), .object(paginateObject)],
                "description": "How the next page is asked for: a style name, or a mapping with the style and its parameter names.",
            ],
            "convert": object("convert", SpecKeys.convert),
            "fieldMapping": object("fieldMapping", SpecKeys.fieldMapping),
            "cache": object("cache", SpecKeys.cache),
            "filter": object("filter", SpecKeys.filter),
            "sink": object("sink", SpecKeys.sink + LiferaySinkKeys.all.filter { !SpecKeys.sink.contains($0) }),
            "incremental": object("incremental", IncrementalSpec.keys, required: ["cursor", "type"]),
            "follow": object("follow", FollowSpec.keys),
            "secret": [
                "type": "object", "additionalProperties": false, "required": ["secret"],
                "properties": ["secret": scalar],
                "description": "A value treated as a secret whatever its name: never shown, logged or cached.",
            ],
        ]
        return [
            "$schema": "http://json-schema.org/draft-07/schema#",
            "title": "screens-pipe pipeline file",
            "description": "One paged list: source -> cache -> convert -> filter -> sink. See PipelineFileReference.md.",
            "type": "object",
            "additionalProperties": false,
            // A file whose sink writes to a portal reads JSON lines when it has no source.
            "if": LiferaySinkKeys.writesToAPortal,
            "else": ["required": ["source"]],
            "properties": .object(topLevelProperties(&missing)),
            "definitions": .object(definitions),
        ]
    }

    /// A key of `sink:`: its type (the built-in ones and every registered ``SinkType``), a
    /// registered type's own key, or a key of the `liferay` sink.
    private static func sinkValue(_ key: String) -> JSONValue? {
        let registered = BackendRegistry.sinkTypes
        if key == "type" {
            let summaries = ["liferay writes them to a portal with screens-pipe write"] + registered.map(\.summary)
            return enumeration(
                ["stdout", "file", "liferay"] + registered.map(\.name),
                "Where rows go (file when path is given; \(summaries.joined(separator: "; ")))."
            )
        }
        if let value = registered.lazy.compactMap({ $0.schemaValues[key] }).first { return value }
        return LiferaySinkKeys.schemaValue(key, sourceValue: values["source.\(key)"])
    }

    private static func topLevelProperties(_ missing: inout [String]) -> JSONObject {
        var properties = JSONObject()
        for key in SpecKeys.topLevel {
            if let value = values["top.\(key)"] { properties[key] = value } else { missing.append("top.\(key)") }
        }
        return properties
    }

    /// `if key == value then only keys, and required` for one source type or paginate style.
    private static func variant(key: String, value: String, keys: [String], required: [String]) -> JSONValue {
        var then: JSONObject = ["propertyNames": enumeration(keys)]
        if !required.isEmpty { then["required"] = .array(required.map { .string($0) }) }
        return ["if": ["properties": .object([key: ["const": .string(value)]]), "required": [.string(key)]], "then": .object(then)]
    }

    // MARK: - Value descriptions

    /// `${VAR}` in any scalar is expanded before decoding, so every typed value may be one.
    package static let interpolated: JSONValue = ["type": "string", "pattern": "\\$\\{"]

    package static func typed(_ schema: JSONObject, _ description: String) -> JSONValue {
        ["anyOf": [.object(schema), interpolated], "description": .string(description)]
    }

    package static func string(_ description: String) -> JSONValue {
        ["type": "string", "minLength": 1, "description": .string(description)]
    }

    package static func integer(_ minimum: Int, _ maximum: Int, _ description: String) -> JSONValue {
        typed(["type": "integer", "minimum": .int(Int64(minimum)), "maximum": .int(Int64(maximum))], description)
    }

    /// `proxy:`: `none`, `env`, a URL, or `{ url, username, password }`.
    private static func proxy(_ description: String) -> JSONValue {
        [
            "anyOf": [
                ["type": "string", "minLength": 1],
                [
                    "type": "object", "additionalProperties": false, "required": ["url"],
                    "properties": [
                        "url": ["type": "string", "minLength": 1], "username": ["type": "string", "minLength": 1],
                        "password": ["type": "string"],
                    ],
                ],
            ],
            "description": .string(description),
        ]
    }

    private static func boolean(_ description: String) -> JSONValue { typed(["type": "boolean"], description) }

    private static func duration(_ description: String) -> JSONValue {
        ["anyOf": [["type": "number", "minimum": 0], ["type": "string", "pattern": "^([0-9.]+(ms|s|m|h))+$"], interpolated],
         "description": .string("\(description) (a duration such as 15s, 200ms, 1h30m; a bare number is seconds)")]
    }

    package static func enumeration(_ names: [String], _ description: String? = nil) -> JSONValue {
        var schema: JSONObject = ["enum": .array(names.map { .string($0) })]
        if let description { schema["description"] = .string(description) }
        return .object(schema)
    }

    private static let scalar: JSONValue = ["type": ["string", "number", "boolean"]]

    /// Header and query values: scalars, or `{ secret: value }`.
    private static func scalarMap(_ description: String) -> JSONValue {
        ["type": "object", "additionalProperties": ["anyOf": [scalar, ["$ref": "#/definitions/secret"]]], "description": .string(description)]
    }

    private static func reference(_ name: String) -> JSONValue { ["$ref": .string("#/definitions/\(name)")] }

    private static let fieldPaths: JSONValue = [
        "anyOf": [["type": "string", "minLength": 1], ["type": "array", "items": ["type": "string", "minLength": 1], "minItems": 1]],
        "description": "Field paths (a.b, a[0], a[\"k\"]) as a list or one comma-separated string.",
    ]

    /// Every key of the decoder's tables, as `table.key`, with the schema of its value.
    private static let values: [String: JSONValue] = [
        "top.name": string("The pipeline's name in events and metrics; the file name by default."),
        "top.source": reference("source"),
        "top.convert": reference("convert"),
        "top.cache": reference("cache"),
        "top.filter": reference("filter"),
        "top.sink": reference("sink"),
        "top.incremental": reference("incremental"),
        "top.follow": reference("follow"),

        "source.type": enumeration(SourceRegistry.builtIn.map { $0.typeName }, "The wire format, or a local file."),
        "source.pagination": reference("pagination"),
        "source.server": [
            "anyOf": [
                ["type": "string", "minLength": 1],
                [
                    "type": "object", "additionalProperties": false, "required": ["url"],
                    "properties": [
                        "url": ["type": "string", "minLength": 1],
                        "company-id": ["anyOf": [["type": "integer", "minimum": 1], interpolated]],
                        "group-id": ["anyOf": [["type": "integer", "minimum": 1], interpolated]],
                    ],
                ],
            ],
            "description":
                "Base URL (http:// or https://), or sandbox for the bundled sandbox portal; or { url, company-id, group-id }, the server context whose group-id a groupId of 0 stands for.",
        ],
        "source.auth": reference("auth"),
        "source.timeout": duration("The whole request's time limit"),
        "source.connect-timeout": duration("The connection's time limit"),
        "source.retry": reference("retry"),
        "source.max-response-size": ["anyOf": [["type": "integer", "minimum": 1], ["type": "string", "pattern": "^[0-9.]+(B|KB|MB|GB|KiB|MiB|GiB)?$"], interpolated],
                                     "description": "The largest response body read (such as 64MiB)."],
        "source.allow-insecure-auth": boolean("Send credentials over plain http:// to a host that is not loopback."),
        "source.follow-other-origins": boolean("Follow next links and Link headers to other origins (without credentials)."),
        "source.ca-file": string("A PEM file of CA certificates to trust."),
        "source.insecure-skip-tls-verify": boolean("Do not verify TLS certificates (never with credentials)."),
        "source.proxy": proxy("none (the default: connect directly), env (https_proxy, http_proxy, all_proxy and no_proxy as curl reads them), an http:// or https:// proxy URL, or { url, username, password }. https origins are tunnelled (CONNECT)."),
        "source.client-cert": string("A PEM file of the client certificate presented to a server that asks for one (relative to the pipeline file)."),
        "source.client-key": string("A PEM file of the client certificate's private key, when not in client-cert."),
        "source.client-key-passphrase": string("The passphrase of an encrypted client-key, for example ${CLIENT_KEY_PASSPHRASE}."),
        "source.headers": scalarMap("Extra request headers; secret-named ones and { secret: value } are redacted everywhere."),
        "source.rows": reference("serviceCall"),
        "source.count": reference("serviceCall"),
        "source.sort": string("The comparator class JSON-WS sorts by (obc)."),
        "source.sort-param": string("The parameter that carries the comparator (default obc; orderByComparator for the journal service of Liferay 7.3 and later)."),
        "source.start-param": string("The JSON-WS parameter that takes the first row (default start)."),
        "source.end-param": string("The JSON-WS parameter that takes the end row (default end)."),
        "source.classes": [
            "type": "array", "items": ["type": "string", "minLength": 1], "minItems": 1,
            "description": "Asset classes by name (BookmarksEntry, JournalArticle... or fully qualified), resolved to classNameIds through the portal's class-name service.",
        ],
        "source.portlet-item-name": [
            "anyOf": [
                ["type": "string", "minLength": 1],
                [
                    "type": "object", "additionalProperties": false, "required": ["name"],
                    "properties": ["name": ["type": "string", "minLength": 1], "group-id": ["anyOf": [["type": "integer", "minimum": 1], interpolated]]],
                ],
            ],
            "description": "An Asset Publisher's saved selection, loaded through the Screens asset service that takes it.",
        ],
        "source.path": string("Headless: the collection's path. File: the JSON file, relative to the pipeline file."),
        "source.query": scalarMap("Query parameters added to every request (paging parameters are refused)."),
        "source.url": string("REST: the list's URL, absolute or relative to server."),
        "source.records": string("The path to the array of rows in the body (REST) or file."),
        "source.total": string("REST: the path to the total row count in the body (a number or a string of digits)."),
        "source.total-pages": string("REST: the path to the number of pages in the body."),
        "source.has-more": string("REST: the path to a boolean that says whether more rows follow; false ends the list."),
        "source.paginate": reference("paginate"),
        "source.method": enumeration(["GET", "POST"], "REST: GET (default, the page in the query) or POST (the page in 'body')."),
        "source.body": ["type": "object", "description": "REST with method POST: the JSON body; the strings \"{offset}\", \"{limit}\", \"{pageSize}\", \"{page}\" and \"{cursor}\" become the page's values."],
        "source.idempotent": boolean("REST with method POST: retry the POST like a read (default true: a search changes nothing)."),
        "source.for-each": [
            "type": "object", "additionalProperties": false, "required": ["as", "list"],
            "properties": [
                "as": ["type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$", "description": "The name ${name.field} placeholders use for a parent row."],
                "list": ["$ref": "#/definitions/source", "description": "The parent list; it takes the network keys of the source around it unless it sets them."],
                "concurrency": ["anyOf": [["type": "integer", "minimum": 1, "maximum": 64], interpolated],
                                "description": "Child lists loading at once and requests in flight for the whole run (outermost for-each only; default pagination.prefetch)."],
                "max-parents": ["anyOf": [["type": "integer", "minimum": 1, "maximum": 1_000_000], interpolated],
                                "description": "The most rows the parent list may have (default 10000); more is an error."],
            ],
            "description": "Run this source once per row of another list, with ${name.field} placeholders resolved from that row. See FanOut.md.",
        ],
        "source.include": [
            "anyOf": [["type": "string", "minLength": 1], ["type": "array", "items": ["type": "string", "minLength": 1]]],
            "description": "Parent fields (name.field) copied into each output row under _parent.",
        ],
        "source.recursive": [
            "type": "object", "additionalProperties": false, "required": ["key", "param"],
            "properties": [
                "key": ["type": "string", "minLength": 1, "description": "The field that identifies a row (folderId)."],
                "param": ["type": "string", "minLength": 1, "description": "The parameter that asks for a row's children (parentFolderId)."],
                "max-depth": ["anyOf": [["type": "integer", "minimum": 1, "maximum": 64], interpolated], "description": "Levels below the root list (default 16); deeper is an error."],
            ],
            "description": "List a tree: each row's children are the list asked for with its key as param, walked depth first; a repeated key is an error.",
        ],

        "pagination.first-page-size": integer(1, ConfigLimits.maximumPageSize, "Rows on page 0 (default 50)."),
        "pagination.page-size": integer(1, ConfigLimits.maximumPageSize, "Rows on every later page (default 25)."),
        "pagination.prefetch": [
            "anyOf": [["type": "integer", "minimum": 1, "maximum": 64], ["const": "auto"], interpolated],
            "description": "Pages in flight at once after page 0 (default 4); auto tunes it from response times and back-pressure, up to max-prefetch.",
        ],
        "pagination.max-prefetch": integer(1, 64, "With prefetch: auto, the most pages in flight (default 16)."),
        "pagination.max-pages": integer(1, ConfigLimits.maximumPages, "A list with more pages is an error."),

        "auth.basic": reference("basic"),
        "auth.bearer": ["anyOf": [["type": "string", "minLength": 1], reference("secret")], "description": "A bearer token."],
        "auth.oauth2": reference("oauth2"),
        "auth.cookie": reference("cookie"),
        "cookie.username": string("The portal login to sign in with by form (Liferay: the email address)."),
        "cookie.password": ["type": "string", "minLength": 1, "description": "The user's password; never shown."],
        "cookie.login-path": string("The login form's path on the server (default /c/portal/login)."),
        "source.rate-limit": reference("rateLimit"),
        "source.on-response": [
            "type": "array", "maxItems": .int(Int64(SpecDecoder.maximumResponseRules)), "items": reference("responseRule"),
            "description": "Rules tried in order on every response: skip-page, end-list, retry or fail on a status or body match.",
        ],
        "responseRule.status": ["anyOf": [["type": "integer", "minimum": 100, "maximum": 599], ["type": "array", "items": ["type": "integer", "minimum": 100, "maximum": 599], "minItems": 1]], "description": "The status, or a list of statuses, the rule matches."],
        "responseRule.body-contains": ["type": "string", "minLength": 1, "maxLength": .int(Int64(ResponseRule.maximumNeedleLength)), "description": "Text the body must contain (its first MiB is searched)."],
        "responseRule.json": reference("responseRuleJSON"),
        "responseRuleJSON.path": string("The field path in the JSON body, such as error.code."),
        "responseRuleJSON.equals": ["type": ["string", "number", "boolean", "null"], "description": "The value at 'path' that matches."],
        "responseRule.action": enumeration(ResponseAction.allCases.map(\.rawValue), "What a match does."),
        "responseRule.message": string("Said in the error of 'fail', and with a skipped page or ended list."),
        "rateLimit.requests": integer(1, 1_000_000, "Requests allowed per 'per' to the server's origin, shared by every pipeline of the process."),
        "rateLimit.per": duration("The period of 'requests' (default 1s)"),
        "rateLimit.burst": integer(1, 10_000, "Requests that may go at once after a quiet spell (default 1: evenly spaced)."),
        "rateLimit.max-wait": duration("The longest pause a server's 429 Retry-After or RateLimit-Reset may impose (default 60s)"),
        "oauth2.proxy": proxy("The token endpoint's proxy, as source.proxy (none, env, a URL or { url, username, password }); default: the section's proxy."),
        "oauth2.token-url": string("The token endpoint: a path on the server or an absolute URL (default /o/oauth2/token)."),
        "oauth2.grant": enumeration(["client-credentials", "refresh-token", "password"], "How the token is obtained (default client-credentials)."),
        "oauth2.client-id": string("The OAuth 2 application's client id."),
        "oauth2.client-secret": ["type": "string", "minLength": 1, "description": "The client secret; never shown."],
        "oauth2.refresh-token": ["type": "string", "minLength": 1, "description": "The refresh token of grant refresh-token; never shown."],
        "oauth2.username": string("The portal user of grant password (Liferay: the email address)."),
        "oauth2.password": ["type": "string", "minLength": 1, "description": "The user's password of grant password; never shown."],
        "oauth2.scope": string("Space-separated scopes to ask for; the client's default scopes when absent."),
        "oauth2.client-auth": enumeration(OAuth2Spec.ClientAuthentication.allCases.map(\.rawValue), "form parameters (default) or HTTP basic."),
        "oauth2.allow-other-token-origin": boolean("Allow a token endpoint on another origin than the source's."),
        "basic.username": string("The user's login (an email address for Liferay)."),
        "basic.password": ["anyOf": [["type": ["string", "number"]], reference("secret")], "description": "The password; never shown."],

        "retry.attempts": integer(1, ConfigLimits.maximumAttempts, "Tries per request, the first included (default 4)."),
        "retry.backoff": duration("The first wait between tries, doubled each time with jitter"),
        "retry.max-backoff": duration("The longest wait between tries"),

        "serviceCall.service": string("The JSON-WS service path, such as /bookmarks.bookmarksentry/get-entries."),
        "serviceCall.params": ["type": "object", "description": "The service's parameters; +name: class for object parameters, { secret: value } for secrets."],

        "paginate.style": enumeration(SpecDecoder.PaginateStyle.allCases.map(\.rawValue), "How the next page is asked for."),
        "paginate.offset-param": string("The parameter that takes the first row's offset."),
        "paginate.limit-param": string("The parameter that takes the page size."),
        "paginate.page-param": string("The parameter that takes the page number."),
        "paginate.size-param": string("The parameter that takes the page size."),
        "paginate.first-page": integer(0, ConfigLimits.maximumFirstPage, "The number of the first page (default 1)."),
        "paginate.cursor-param": string("The parameter that takes the cursor."),
        "paginate.cursor-path": string("The path to the next cursor in the body."),
        "paginate.next-path": string("The path to the next page's URL in the body."),
        "paginate.cursor-header": string("The response header that carries the next cursor, such as X-Next-Cursor."),
        "paginate.first-offset": integer(0, Int(Int32.max), "The offset of the list's first row (default 0)."),
        "paginate.max-offset": integer(1, Int(Int32.max), "No row at or past this offset is asked for: where the API stops paging."),
        "paginate.max-page": integer(0, Int(Int32.max), "The last page number asked for: where the API stops paging."),

        "convert.model": enumeration(ModelKind.allCases.map(\.rawValue), "A built-in Liferay Screens model."),
        "convert.locale": ["type": "string", "pattern": "^[A-Za-z]{2,3}([_-][A-Za-z0-9]+)*$", "description": "The locale of localized values, such as en_US."],
        "convert.fields": ["type": "object", "additionalProperties": ["anyOf": [["type": "string", "minLength": 1], reference("fieldMapping")]],
                           "description": "Output field: source path, or a mapping with from, type, default, required, localized."],
        "convert.on-invalid": enumeration(["fail", "skip"], "What a row that does not convert does to the run."),
        "fieldMapping.from": string("The source path (the output name by default)."),
        "fieldMapping.type": enumeration(FieldType.allCases.map(\.rawValue), "The type the value is converted to."),
        "fieldMapping.default": ["description": "The value when the path leads nowhere."],
        "fieldMapping.required": boolean("A row without the value is an error."),
        "fieldMapping.localized": boolean("The value is localized (Liferay XML or a locale map)."),

        "cache.policy": enumeration(CachePolicy.allCases.map(\.rawValue), "The offline policy (default remote-first)."),
        "cache.key": string("A key template such as {groupId}-{folderId}."),
        "cache.ttl": duration("How old a cached page may be for cache-first"),
        "cache.path": string("The cache database file."),
        "cache.url": string("A PostgreSQL database shared by many processes: postgres://user@host:port/database (password from ${ENV} or PGPASSWORD)."),
        "cache.tls": enumeration(PostgresTarget.TLSMode.allCases.map(\.rawValue), "TLS to PostgreSQL (default prefer; require verifies the certificate)."),
        "cache.ca-file": string("A PEM file of the certificate authorities PostgreSQL's certificate is checked against."),
        "cache.lock-wait": duration("How long a run waits for another run of the same list or write target before it fails with exit 75 (default 60s)"),

        "filter.where": string("The selection expression, such as: name contains \"Liferay\" and visits > 2."),
        "filter.limit": integer(1, Int(Int64.max), "Stop after this many selected rows."),

        "sink.path": string("The output file, written atomically."),
        "sink.format": enumeration(SinkFormat.allCases.map(\.rawValue), "What is written."),
        "sink.fields": LiferaySinkKeys.fieldsSchema(projection: fieldPaths),

        "incremental.cursor": string("The path of the cursor field (modifiedDate, dateModified, id...) in the row."),
        "incremental.in": enumeration(CursorRow.allCases.map(\.rawValue), "Read the cursor in the raw row (default; can be pushed to the server) or the converted one."),
        "incremental.type": enumeration(CursorType.allCases.map(\.rawValue), "How cursor values are read and ordered."),
        "incremental.initial": ["type": ["string", "integer"], "description": "The cursor of the first run: rows at or before it are not delivered."],
        "incremental.lookback": ["anyOf": [["type": "integer", "minimum": 1], ["type": "string", "minLength": 1]],
                                 "description": "Read again this far before the stored cursor: a duration (10m) for a date cursor, an amount for an integer one."],
        "incremental.end": ["type": ["string", "integer"], "description": "Rows past this cursor value are not delivered."],

        "follow.sweep-every": ["anyOf": [["type": "integer", "minimum": 1, "maximum": .int(Int64(SweepSchedule.maximumPolls))], ["type": "string", "minLength": 1]],
                               "description": "With incremental: and run --follow, read the list's keys every N polls (10) or once this long has passed (10m), and write the rows gone as deleted."],
        "follow.sweep-fields": string("A rest source's query parameter that narrows rows to the fields it names: the sweep sends the key fields in it."),
    ]
}

/// JSON text with two-space indentation, members in their order: what a checked-in schema
/// file diffs well as.
enum JSONPrettyText {
    static func text(_ value: JSONValue, indent: String = "") -> String {
        let inner = indent + "  "
        switch value {
        case .object(let object) where !object.isEmpty:
            let members = object.map { "\(inner)\(scalarText(.string($0.key))): \(text($0.value, indent: inner))" }
            return "{\n" + members.joined(separator: ",\n") + "\n\(indent)}"
        case .array(let items) where !items.isEmpty && items.contains(where: { if case .object = $0 { true } else { false } }):
            return "[\n" + items.map { inner + text($0, indent: inner) }.joined(separator: ",\n") + "\n\(indent)]"
        default:
            return scalarText(value)
        }
    }

    private static func scalarText(_ value: JSONValue) -> String {
        var writer = JSONWriter()
        writer.write(value)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
