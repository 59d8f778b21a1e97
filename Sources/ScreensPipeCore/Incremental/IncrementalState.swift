import ScreensBus

/// Where an incremental list stands: the largest cursor value delivered, and the digests of
/// the delivered rows that have exactly that value (the boundary). Rows that share the value
/// but were written after the run are still delivered next time, while those already
/// delivered are not (see IncrementalLoads.md, "Equal cursor values").
struct CursorPosition: Sendable, Hashable {
    var cursor: CursorValue
    var boundary: Set<String>
}

/// The state document an incremental list commits (version 1):
///
/// ```json
/// {"version":1,"type":"date","cursor":"2026-11-22T17:20:03.000Z","boundary":["sha256:…"],
///  "pending":{"cursor":"…","boundary":[…],"output":{"path":"out.jsonl","device":2049,"inode":131}}}
/// ```
///
/// `pending` is the position of a run whose output file was synced but maybe not yet
/// renamed into place when the document was written: the next run keeps it if the file at
/// `output.path` is that inode (the rename happened before a crash), else drops it.
struct IncrementalState: Sendable, Hashable {
    static let version: Int64 = 1
    /// A boundary larger than this is refused when read: a document is untrusted input.
    static let maximumBoundary = 1_000_000
    /// The largest document read (each boundary digest is 23 bytes).
    static let maximumDocumentBytes = 64 << 20

    /// The committed position; nil before any cursor (a first run still in its commit).
    var position: CursorPosition?
    /// A position committed before its output's rename, with that output.
    var pending: (position: CursorPosition, output: OutputIdentity)?

    init(position: CursorPosition?, pending: (position: CursorPosition, output: OutputIdentity)? = nil) {
        self.position = position
        self.pending = pending
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.position == rhs.position && lhs.pending?.position == rhs.pending?.position && lhs.pending?.output == rhs.pending?.output
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(position)
        hasher.combine(pending?.position)
        hasher.combine(pending?.output)
    }

    /// The document's JSON text, boundaries sorted so equal states have equal text.
    func document(type: CursorType) -> String {
        var object: JSONObject = ["version": .int(Self.version), "type": .string(type.rawValue)]
        Self.write(position, into: &object)
        if let pending {
            var member = JSONObject()
            Self.write(pending.position, into: &member)
            member["output"] = [
                "path": .string(pending.output.path), "device": .number(String(pending.output.device)),
                "inode": .number(String(pending.output.inode)),
            ]
            object["pending"] = .object(member)
        }
        return JSONValue.object(object).jsonString
    }

    private static func write(_ position: CursorPosition?, into object: inout JSONObject) {
        object["cursor"] = position.map { .string($0.cursor.text) } ?? .null
        object["boundary"] = .array((position?.boundary ?? []).sorted().map(JSONValue.string))
    }

    /// Reads a committed document for a list whose cursor is of `type`. A document that is
    /// not one (corrupt, another version, another cursor type) is a `state` error that says
    /// how to start over.
    init(document: String, type: CursorType, key: StateKey) throws(ScreensPipeError) {
        func invalid(_ reason: String) -> ScreensPipeError {
            .state(
                "the stored state of pipeline \(key.pipeline) cannot be used: \(reason); start over with `screens-pipe state reset` or `run --full-refresh`")
        }
        guard document.utf8.count <= Self.maximumDocumentBytes else { throw invalid("it is larger than \(Self.maximumDocumentBytes >> 20) MiB") }
        let value: JSONValue
        do throws(JSONParseError) {
            value = try JSONValue(parsing: document)
        } catch {
            throw invalid("it is not JSON (\(error))")
        }
        guard case .object(let object) = value else { throw invalid("it is not a JSON object") }
        guard object["version"]?.int64Value == Self.version else {
            throw invalid("its version is \(object["version"].map { $0.jsonString } ?? "missing"), this screens-pipe reads version \(Self.version)")
        }
        guard let typeName = object["type"]?.stringValue, typeName == type.rawValue else {
            throw invalid("its cursor is of type \(object["type"]?.stringValue ?? "unknown"), the pipeline's is \(type.rawValue)")
        }
        position = try Self.position(in: object, type: type, invalid: invalid)
        if let member = object["pending"], !member.isNull {
            guard case .object(let pendingObject) = member,
                let pendingPosition = try Self.position(in: pendingObject, type: type, invalid: invalid),
                case .object(let output)? = pendingObject["output"], let path = output["path"]?.stringValue,
                let device = output["device"].flatMap(Self.unsigned), let inode = output["inode"].flatMap(Self.unsigned)
            else {
                throw invalid("its pending commit is not a cursor with an output path, device and inode")
            }
            pending = (pendingPosition, OutputIdentity(path: path, device: device, inode: inode))
        }
    }

    static func unsigned(_ value: JSONValue) -> UInt64? {
        switch value {
        case .int(let integer): integer >= 0 ? UInt64(integer) : nil
        case .number(let text): UInt64(text)
        default: nil
        }
    }

    static func position(
        in object: JSONObject, type: CursorType, invalid: (String) -> ScreensPipeError
    ) throws(ScreensPipeError) -> CursorPosition? {
        guard let member = object["cursor"], !member.isNull else { return nil }
        guard let text = member.stringValue, let cursor = CursorValue.parse(text, as: type) else {
            throw invalid("its cursor is not \(type.article) \(type.rawValue)")
        }
        guard case .array(let items)? = object["boundary"], items.count <= maximumBoundary else {
            throw invalid("its boundary is not a list of at most \(maximumBoundary) digests")
        }
        var boundary = Set<String>()
        for item in items {
            guard let digest = item.stringValue, digest.utf8.count <= 80 else { throw invalid("its boundary holds something that is not a row digest") }
            boundary.insert(digest)
        }
        return CursorPosition(cursor: cursor, boundary: boundary)
    }
}

extension ScreensPipeError.Code {
    /// A list state (incremental cursor) could not be read, used or committed.
    public static let state = Self("state")
}

extension ScreensPipeError {
    /// A list state could not be read, used or committed.
    public static func state(_ message: String) -> ScreensPipeError {
        ScreensPipeError(.state, message)
    }
}
