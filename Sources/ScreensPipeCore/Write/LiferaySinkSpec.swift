import ScreensBus

/// `sink: { type: liferay, ... }`: rows become entries of a portal, as Add Bookmark
/// Screenlet's interactor creates one bookmark.
///
/// ```yaml
/// sink:
///   type: liferay
///   server: ${LIFERAY_SERVER:-sandbox}
///   auth: { basic: { username: test@liferay.com, password: ${LIFERAY_PASSWORD:-test} } }
///   service: bookmark
///   group-id: 20143
///   folder-id: 20201
///   batch-size: 25
///   key: [url, folderId]
/// ```
///
/// A pipeline with this sink runs with `screens-pipe write`; `run` refuses it.
public struct LiferaySinkSpec: Sendable, Hashable {
    /// The server, credentials and transport limits, decoded with the same keys as a
    /// networked `source:` (`server`, `auth`, `timeout`, `retry`, `headers`...).
    public var connection: SourceSpec
    /// The kind of entry each row becomes.
    public var service: WriteService
    /// How requests reach the portal.
    public var transport: WriteTransport
    /// Commands per JSON-WS batch request (`batch-size`, 1...500, default 25).
    public var batchSize: Int
    /// The site written to (`group-id`), unless the server context names one.
    public var groupId: Int64
    /// The folder every row goes to (`folder-id`, `0` for the site's root); nil takes each
    /// row's own `folderId`, which is then required. For `service: ddl-record`, the folder
    /// a record's documents are uploaded to (nil: the site's root).
    public var folderId: Int64?
    /// The fields that identify an entry (`key`, default `[url, folderId]` for bookmarks,
    /// `[title]` for web content): what the write looks up before it retries a create whose
    /// outcome it could not see.
    public var key: [String]
    /// The web content structure of rows that name none (`content-structure-id`, headless).
    public var contentStructureId: Int64?
    /// The web content structure key of rows that name none (`structure-key`, JSON-WS).
    public var structureKey: String?
    /// The web content template key of rows that name none (`template-key`, JSON-WS).
    public var templateKey: String?
    /// `service: custom`: the command and how rows fill its parameters.
    public var declared: DeclaredService?
    /// `service: ddl-record`: the dynamic data list written to (`record-set-id`).
    public var recordSetId: Int64?
    /// The portal's version (`liferay-version`), which decides each command's signature.
    public var portalVersion: PortalVersion = .default
    /// When writes reach the portal (`write-policy`, default `remote-only`); the others keep
    /// pending writes in the outbox (see the "Offline writes" guide).
    public var writePolicy: WritePolicy = .remoteOnly
    /// What a sync does when a pending update's entry changed on the portal
    /// (`conflict-policy`, default `report`).
    public var conflictPolicy: ConflictPolicy = .report
    /// The row field that says which version of an entry a row was read from
    /// (`version-field`, default `modifiedDate`), compared before a pending update is sent.
    public var versionField: String = "modifiedDate"

    /// Creates a sink spec with the defaults of the pipeline file.
    public init(
        connection: SourceSpec, service: WriteService = .bookmark, transport: WriteTransport = .jsonws,
        batchSize: Int = 25, groupId: Int64, folderId: Int64? = nil, key: [String]? = nil, contentStructureId: Int64? = nil
    ) {
        self.connection = connection
        self.service = service
        self.transport = transport
        self.batchSize = batchSize
        self.groupId = groupId
        self.folderId = folderId
        self.key = key ?? service.defaultKey
        self.contentStructureId = contentStructureId
    }
}

/// The entry kinds a `liferay` sink writes.
public enum WriteService: String, Sendable, Hashable, CaseIterable {
    /// A bookmarks entry: `/bookmarks.bookmarksentry/add-entry` and `update-entry`.
    case bookmark
    /// A web content article: headless-delivery's structured contents.
    case webContent = "web-content"
    /// A JSON-WS command the pipeline names (`command`), its parameters mapped from row
    /// fields (`fields`).
    case custom
    /// A dynamic data list record: `/ddl.ddlrecord/add-record` and `update-record`.
    case ddlRecord = "ddl-record"
    /// A comment of an asset's discussion: Screens' `/screens.screenscomment/add-comment` and
    /// `update-comment`, and `/comment.commentmanagerjsonws/delete-comment`; each row says
    /// which (Write/JSONWS/CommentWrites.swift). With `transport: headless`,
    /// headless-delivery's `POST .../{blog-postings|structured-contents|documents}/{id}/comments`,
    /// `PUT` and `DELETE .../comments/{commentId}` (Write/Headless/HeadlessCommentWriter.swift).
    case comment
    /// A file entry of the document library, as Image Gallery Screenlet uploads and deletes
    /// one: `/dlapp/add-file-entry` (multipart, the file streamed from disk) and
    /// `/dlapp/delete-file-entry`; each row says which (Write/Upload/ImageUploadWriter.swift).
    /// With `transport: headless`, headless-delivery's multipart
    /// `POST .../document-folders/{documentFolderId}/documents` and `DELETE .../documents/{id}`.
    case image

    /// The fields that may identify an entry of this kind (`key`); a custom command's are
    /// its declared parameters.
    public var keyFields: Set<String> {
        switch self {
        case .bookmark: ["url", "folderId", "name"]
        case .webContent: ["title", "friendlyUrlPath"]
        case .custom, .ddlRecord, .comment, .image: []
        }
    }

    /// The key when the sink declares none (a custom command's: all its parameters; a
    /// record's: all its fields).
    public var defaultKey: [String] {
        switch self {
        case .bookmark: ["url", "folderId"]
        case .webContent: ["title"]
        case .custom, .ddlRecord, .comment, .image: []
        }
    }
}

/// How a `liferay` sink reaches the portal.
public enum WriteTransport: String, Sendable, Hashable, CaseIterable {
    /// `POST /api/jsonws/invoke` with a batch of commands.
    case jsonws
    /// Headless REST: `POST` to a site's list, `PUT .../by-external-reference-code/{erc}`.
    case headless
}

enum LiferaySinkKeys {
    /// The sink's own keys; the connection keys are those of a networked source.
    static let own = [
        "type", "service", "transport", "batch-size", "group-id", "folder-id", "key", "content-structure-id", "structure-key",
        "template-key", "command", "fields", "optional", "record-set-id", "liferay-version", "write-policy",
        "conflict-policy", "version-field",
    ]
    static let connection = [
        "server", "auth", "timeout", "connect-timeout", "retry", "max-response-size", "allow-insecure-auth",
        "ca-file", "insecure-skip-tls-verify", "headers",
    ] + SpecDecoder.transportRouteKeys
    static let all = own + connection
    /// Every field name some service accepts in `key`.
    static let allKeyFields: Set<String> = WriteService.allCases.reduce(into: []) { $0.formUnion($1.keyFields) }
    static let maximumBatchSize = 500
}

extension SpecDecoder {
    /// `sink: { type: liferay, ... }`.
    func decodeLiferaySink(_ section: Section) -> LiferaySinkSpec? {
        section.checkKeys(LiferaySinkKeys.all, in: "sink type 'liferay'")
        var connection = SourceSpec(type: .file(FileSourceSpec(path: "")))
        decodeNetwork(section, into: &connection)
        if connection.server == nil { _ = section.required("server", for: "sink type 'liferay'") }
        let service = section.choice("service", WriteService.self) ?? .bookmark
        let transport = section.choice("transport", WriteTransport.self) ?? .jsonws
        let batchSize = section.int("batch-size", atLeast: 1, atMost: LiferaySinkKeys.maximumBatchSize) ?? 25
        let folderId = section.int("folder-id", atLeast: 0, atMost: Int.max).map(Int64.init)
        var groupId = section.int("group-id", atLeast: 1, atMost: Int.max).map(Int64.init)
        if groupId == nil { groupId = connection.serverContext?.groupId }
        // A comment goes to its asset's site, which the portal finds from className/classPK.
        if groupId == nil, service != .comment { context.fail("sink type 'liferay' needs 'group-id' (or server.group-id): the site the entries go to", at: section.location) }
        let declared = service == .custom ? decodeDeclaredService(section) : nil
        let recordSetId = section.int("record-set-id", atLeast: 1, atMost: Int.max).map(Int64.init)
        if service == .ddlRecord, recordSetId == nil, section["record-set-id"] == nil {
            context.fail("'service: ddl-record' needs 'record-set-id': the dynamic data list the records go to", at: section.location)
        } else if service != .ddlRecord, section["record-set-id"] != nil {
            context.fail("'record-set-id' is for 'service: ddl-record'", at: section["record-set-id"]?.location ?? section.location)
        }
        if service != .custom {
            for name in ["command", "fields", "optional"] where section[name] != nil {
                context.fail("'\(name)' is for 'service: custom'", at: section[name]?.location ?? section.location)
            }
        }
        var key = declared.map { $0.parameters.map(\.name) } ?? service.defaultKey
        if service == .image, let node = section["key"] {
            context.fail(
                "'key' is not for 'service: image': an upload is identified by its folder and title, a delete by its fileEntryId",
                at: node.location)
        } else if service == .comment, let node = section["key"] {
            context.fail(
                "'key' is not for 'service: comment': an added comment is identified by its className, classPK and body, a changed or deleted one by its commentId",
                at: node.location)
        } else if let node = section["key"] {
            let allowed: Set<String>? = service == .ddlRecord ? nil : declared.map { Set($0.parameters.map(\.name)) } ?? service.keyFields
            key = decodeWriteKey(node, allowed: allowed, of: service)
        }
        let structureId = section.int("content-structure-id", atLeast: 1, atMost: Int.max).map(Int64.init)
        let version = section.choice("liferay-version", PortalVersion.self) ?? .default
        if let refusal = PortalWriteSupport.refusal(service, transport, version) {
            context.fail("\(refusal) (liferay-version: \(version.rawValue))", at: section["liferay-version"]?.location ?? section.location)
        }
        switch (service, transport) {
        case (.bookmark, .headless):
            context.fail(
                "Liferay has no headless API for bookmarks (headless-delivery serves no BookmarksEntry): write them with 'transport: jsonws'",
                at: section["transport"]?.location ?? section.location)
        case (.webContent, .jsonws):
            // 7.4's add-article takes ddmStructureId; 7.2's and 7.3's take ddmStructureKey.
            if version >= .v7_4, structureId == nil {
                context.fail("Liferay 7.4's add-article takes the structure's id (ddmStructureId): name it with 'content-structure-id'", at: section.location)
            }
        case (.webContent, .headless):
            if section["folder-id"] != nil {
                context.fail(
                    "'folder-id' places bookmarks; a web content row names its folder with 'structuredContentFolderId'",
                    at: section["folder-id"]?.location ?? section.location)
            }
        case (.ddlRecord, .headless):
            context.fail("Liferay's headless DDL records are another API (headless-form); write records with 'transport: jsonws'", at: section["transport"]?.location ?? section.location)
        case (.image, .jsonws), (.image, .headless):
            if structureId != nil { context.fail("'content-structure-id' is for 'service: web-content'", at: section.location) }
        case (.custom, .headless):
            context.fail("'service: custom' names a JSON-WS command: write it with 'transport: jsonws'", at: section["transport"]?.location ?? section.location)
        case (.comment, .jsonws), (.comment, .headless):
            for name in ["folder-id", "content-structure-id"] where section[name] != nil {
                context.fail(
                    "'\(name)' is not for 'service: comment': a row names its asset with className and classPK (or, over headless, structuredContentId, blogPostingId or documentId)",
                    at: section[name]?.location ?? section.location)
            }
        case (.bookmark, .jsonws), (.custom, .jsonws), (.ddlRecord, .jsonws):
            if structureId != nil {
                context.fail("'content-structure-id' is for 'service: web-content'", at: section.location)
            }
        }
        let writePolicy = section.choice("write-policy", WritePolicy.self) ?? .remoteOnly
        if writePolicy.usesOutbox, transport != .jsonws {
            context.fail(
                "'write-policy: \(writePolicy.rawValue)' keeps pending writes for JSON-WS services; a headless sink writes with 'remote-only'",
                at: section["write-policy"]?.location ?? section.location)
        }
        let conflictPolicy = section.choice("conflict-policy", ConflictPolicy.self) ?? .report
        let versionField = section.string("version-field") ?? "modifiedDate"
        if !writePolicy.usesOutbox {
            for name in ["conflict-policy", "version-field"] where section[name] != nil {
                context.fail("'\(name)' decides how pending writes are synced: it needs a 'write-policy' other than remote-only", at: section[name]?.location ?? section.location)
            }
        }
        let structureKey = section.string("structure-key")
        let templateKey = section.string("template-key")
        if (structureKey != nil || templateKey != nil) && !(service == .webContent && transport == .jsonws) {
            context.fail("'structure-key' and 'template-key' are for 'service: web-content' over 'transport: jsonws'", at: section.location)
        }
        guard let groupId = groupId ?? (service == .comment ? 0 : nil), context.errors.isEmpty else { return nil }
        var spec = LiferaySinkSpec(
            connection: connection, service: service, transport: transport, batchSize: batchSize, groupId: groupId,
            folderId: folderId, key: key, contentStructureId: structureId)
        spec.structureKey = structureKey
        spec.templateKey = templateKey
        spec.declared = declared
        spec.recordSetId = recordSetId
        spec.portalVersion = version
        spec.writePolicy = writePolicy
        spec.conflictPolicy = conflictPolicy
        spec.versionField = versionField
        return spec
    }

    /// The `key` list; `allowed` nil takes any field name (a record's fields are the list's own).
    private func decodeWriteKey(_ node: YAMLNode, allowed: Set<String>?, of service: WriteService) -> [String] {
        let items: [YAMLNode]
        if case .sequence(let sequence) = node { items = sequence.items } else { items = [node] }
        var fields: [String] = []
        for item in items {
            guard let name = context.nonEmptyString(item, key: "key") else { continue }
            if let allowed, !allowed.contains(name) {
                context.fail(
                    "'key' names fields of a \(service.rawValue) that identify it (\(allowed.sorted().joined(separator: ", "))), found '\(name)'",
                    at: item.location)
                continue
            }
            if !fields.contains(name) { fields.append(name) }
        }
        if fields.isEmpty { context.fail("'key' must name at least one field", at: node.location) }
        return fields
    }
}

extension SpecDecoder {
    /// Whether `node` is the scalar `liferay`.
    static func isLiferayType(_ node: YAMLNode?) -> Bool {
        guard case .scalar(let scalar)? = node else { return false }
        return scalar.text == "liferay"
    }

    /// Whether the file's `sink:` is `type: liferay`.
    func isLiferaySink(_ top: Section) -> Bool {
        guard case .mapping(let sink)? = top["sink"] else { return false }
        return Self.isLiferayType(sink["type"])
    }
}

extension SourceSpec {
    /// The source of a writing pipeline without `source:`: JSON lines from standard input
    /// or `--input`, read by `screens-pipe write`.
    public static let writeInput = SourceSpec(type: .file(FileSourceSpec(path: "-")))

    /// Whether this is ``writeInput``.
    public var isWriteInput: Bool { self == Self.writeInput }
}

extension LiferaySinkKeys {
    /// The schema condition "the sink is `type: liferay`", under which `source` is optional.
    static let writesToAPortal: JSONValue = [
        "required": ["sink"],
        "properties": ["sink": ["required": ["type"], "properties": ["type": ["const": "liferay"]]]],
    ]

    /// `sink.fields`: the projection of a stdout or file sink (`projection`), or a custom
    /// liferay command's parameters.
    static func fieldsSchema(projection: JSONValue) -> JSONValue {
        [
            "anyOf": [
                projection,
                [
                    "type": "object", "minProperties": 1,
                    "description": "The command's parameters (liferay sink, service custom): row.<field> takes a row's value, anything else is a constant.",
                ],
            ]
        ]
    }

    /// The schema of a `liferay` sink's key: a connection key is described as in `source:`.
    static func schemaValue(_ key: String, sourceValue: JSONValue?) -> JSONValue? {
        if connection.contains(key) { return sourceValue }
        let interpolated: JSONValue = ["type": "string", "pattern": "\\$\\{"]
        func whole(_ minimum: Int, _ maximum: Int, _ description: String) -> JSONValue {
            ["anyOf": [["type": "integer", "minimum": .int(Int64(minimum)), "maximum": .int(Int64(maximum))], interpolated], "description": .string(description)]
        }
        switch key {
        case "service":
            return ["enum": .array(WriteService.allCases.map { .string($0.rawValue) }), "description": "The kind of entry each row becomes (liferay sink)."]
        case "transport":
            return ["enum": .array(WriteTransport.allCases.map { .string($0.rawValue) }), "description": "How the writes reach the portal (liferay sink)."]
        case "batch-size":
            return whole(1, maximumBatchSize, "Commands per JSON-WS batch request (liferay sink, default 25).")
        case "group-id":
            return whole(1, Int.max, "The site the entries go to (liferay sink).")
        case "folder-id":
            return whole(
                0, Int.max,
                "The folder every row goes to, 0 for the site's root; without it each row's folderId (liferay sink; for ddl-record, where documents are uploaded, default 0).")
        case "record-set-id":
            return whole(1, Int.max, "The dynamic data list the records go to (liferay sink, service ddl-record).")
        case "command":
            return ["type": "string", "pattern": "^/", "description": "The JSON-WS command each row becomes (liferay sink, service custom), e.g. /bookmarks.bookmarksentry/add-entry."]
        case "optional":
            return [
                "anyOf": [["type": "string"], ["type": "array", "items": ["type": "string"]]],
                "description": "Parameters a row may lack, sent as null; the others are required (liferay sink, service custom).",
            ]
        case "structure-key":
            return ["type": "string", "minLength": 1, "description": "The web content structure key (ddmStructureKey) of rows that name none (liferay sink, web-content over jsonws)."]
        case "template-key":
            return ["type": "string", "description": "The web content template key (ddmTemplateKey) of rows that name none (liferay sink, web-content over jsonws)."]
        case "content-structure-id":
            return whole(1, Int.max, "The web content structure (contentStructureId) of rows that name none (liferay sink, service web-content; over jsonws, 7.4's ddmStructureId).")
        case "liferay-version":
            return [
                "anyOf": [["enum": .array(PortalVersion.allCases.map { .string($0.rawValue) })], interpolated],
                "description": "The portal's version, which decides each write command's signature (liferay sink, default 7.2).",
            ]
        case "write-policy":
            return [
                "anyOf": [["enum": .array(WritePolicy.allCases.map { .string($0.rawValue) })], interpolated],
                "description": "When writes reach the portal (liferay sink, default remote-only); the others keep pending writes in the outbox for screens-pipe outbox sync.",
            ]
        case "conflict-policy":
            return [
                "anyOf": [["enum": .array(ConflictPolicy.allCases.map { .string($0.rawValue) })], interpolated],
                "description": "What a sync does with a pending update whose entry changed on the portal (liferay sink, default report).",
            ]
        case "version-field":
            return ["type": "string", "minLength": 1, "description": "The row field compared to detect a conflict before a pending update is sent (liferay sink, default modifiedDate)."]
        case "key":
            return [
                "anyOf": [
                    ["type": "string", "minLength": 1],
                    ["type": "array", "items": ["type": "string", "minLength": 1], "minItems": 1],
                ],
                "description": "The fields that identify an entry, looked up before an unanswered create is sent again (liferay sink; default [url, folderId] for bookmarks, [title] for web content).",
            ]
        default:
            return nil
        }
    }
}
