import ScreensBus

/// How far an interrupted run with `-o FILE` durably got: the pages it delivered, the length
/// of its kept output after them, and what it takes to go on exactly where it stopped.
///
/// Stored as a JSON document (version 1) in the list-state store, beside the list's
/// incremental state, under ``ResumeCheckpoint/key(for:)``:
///
/// ```json
/// {"version":1,"spec":"sha256:…","output":"out.jsonl",
///  "kept":{"path":".out.jsonl.1f….tmp","device":2049,"inode":131},
///  "nextPage":12,"bytes":48213,"pages":12,"rows":600,"selected":600,
///  "snapshot":"5C1E…","delivered":{"cursor":"…","boundary":["sha256:…"]}}
/// ```
///
/// A checkpoint is committed only after the `bytes` it counts were synced to disk, so it
/// never runs ahead of the file.
struct ResumeCheckpoint: Sendable, Hashable {
    static let version: Int64 = 1
    /// The largest document read: it is untrusted input (a boundary digest is 23 bytes).
    static let maximumDocumentBytes = 64 << 20

    /// Digest of everything that shapes the output bytes (see ``ResumeRun/specDigest(of:startCursor:)``).
    var specDigest: String
    /// The `-o` path as given.
    var output: String
    /// The file the bytes are in until the rename, and its identity (kept across the
    /// rename to `.partial`, so it finds the file under either name).
    var kept: OutputIdentity
    /// The first page not in the output: the resumed run starts delivering there.
    var nextPage: Int
    /// The output's length after page `nextPage - 1`.
    var bytes: Int
    /// The run's totals after page `nextPage - 1`, so that `finished`, the summary and a
    /// `limit` count the whole output.
    var pages: Int
    var rows: Int
    var selected: Int
    /// The cache snapshot of the interrupted load: its cached pages are read, not fetched.
    var snapshot: String
    /// For an incremental pipeline: the largest cursor delivered so far and its rows.
    var delivered: CursorPosition?

    /// The key a list's checkpoint is stored under: beside its incremental state, so that
    /// `state reset` of the list does not touch it and it never mixes with the cursor.
    static func key(for state: StateKey) -> StateKey {
        StateKey(pipeline: state.pipeline, list: state.list + "#resume")
    }

    /// The document's JSON text.
    func document() -> String {
        var object: JSONObject = [
            "version": .int(Self.version), "spec": .string(specDigest), "output": .string(output),
            "kept": [
                "path": .string(kept.path), "device": .number(String(kept.device)), "inode": .number(String(kept.inode)),
            ],
            "nextPage": .int(Int64(nextPage)), "bytes": .int(Int64(bytes)), "pages": .int(Int64(pages)),
            "rows": .int(Int64(rows)), "selected": .int(Int64(selected)), "snapshot": .string(snapshot),
        ]
        if let delivered {
            object["delivered"] = [
                "cursor": .string(delivered.cursor.text), "boundary": .array(delivered.boundary.sorted().map(JSONValue.string)),
            ]
        }
        return JSONValue.object(object).jsonString
    }

    /// Reads a stored document; `type` is the pipeline's cursor type (nil: not incremental).
    /// A document that is not a checkpoint is a configuration error that says how to start over.
    init(document: String, type: CursorType?, pipeline: String) throws(ScreensPipeError) {
        func invalid(_ reason: String) -> ScreensPipeError {
            ScreensPipeError.configuration(
                "cannot resume pipeline \(pipeline): its stored checkpoint \(reason); run it again without --resume")
        }
        guard document.utf8.count <= Self.maximumDocumentBytes else { throw invalid("is larger than \(Self.maximumDocumentBytes >> 20) MiB") }
        let value: JSONValue
        do throws(JSONParseError) {
            value = try JSONValue(parsing: document)
        } catch {
            throw invalid("is not JSON (\(error))")
        }
        guard case .object(let object) = value, object["version"]?.int64Value == Self.version else {
            throw invalid("is not a version \(Self.version) checkpoint")
        }
        func count(_ name: String) throws(ScreensPipeError) -> Int {
            guard let number = object[name]?.int64Value, number >= 0, number <= Int64(Int32.max) * 1024 else {
                throw invalid("has no valid '\(name)'")
            }
            return Int(number)
        }
        guard let specDigest = object["spec"]?.stringValue, let output = object["output"]?.stringValue,
            let snapshot = object["snapshot"]?.stringValue, case .object(let kept)? = object["kept"],
            let keptPath = kept["path"]?.stringValue, let device = kept["device"].flatMap(IncrementalState.unsigned), let inode = kept["inode"].flatMap(IncrementalState.unsigned)
        else {
            throw invalid("lacks its spec digest, output, snapshot or kept file")
        }
        self.specDigest = specDigest
        self.output = output
        self.snapshot = snapshot
        self.kept = OutputIdentity(path: keptPath, device: device, inode: inode)
        nextPage = try count("nextPage")
        bytes = try count("bytes")
        pages = try count("pages")
        rows = try count("rows")
        selected = try count("selected")
        delivered = nil
        if let member = object["delivered"], !member.isNull {
            guard let type, case .object(let position) = member else { throw invalid("has a delivered cursor this pipeline cannot read") }
            delivered = try IncrementalState.position(in: position, type: type) { invalid("has an unreadable delivered cursor: \($0)") }
        }
    }

    init(
        specDigest: String, output: String, kept: OutputIdentity, nextPage: Int, bytes: Int, pages: Int, rows: Int,
        selected: Int, snapshot: String, delivered: CursorPosition?
    ) {
        self.specDigest = specDigest
        self.output = output
        self.kept = kept
        self.nextPage = nextPage
        self.bytes = bytes
        self.pages = pages
        self.rows = rows
        self.selected = selected
        self.snapshot = snapshot
        self.delivered = delivered
    }
}
