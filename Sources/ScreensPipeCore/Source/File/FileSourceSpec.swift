import ScreensBus

/// `type: file` — a local JSON array or JSON-lines file, paged like a remote list.
public struct FileSourceSpec: Sendable, Hashable {
    /// The file's path; in a pipeline file, a relative path is resolved against the
    /// pipeline file's directory when the file is loaded.
    public var path: String
    /// Path to the array of rows when the file holds an object.
    public var records: String?

    /// Creates a file source; by default the file holds the array of rows.
    public init(path: String, records: String? = nil) {
        self.path = path
        self.records = records
    }
}

extension FileSourceSpec: SourceTypeSettings {
    static var typeName: String { "file" }

    static var ownKeys: [String] { ["path", "records"] }

    static var requiredKeys: [String] { ["path"] }

    /// A local file has no server, so none of the network settings apply to it.
    static var isNetworked: Bool { false }

    static func decode(_ section: Section, decoder: SpecDecoder, shared: SourceSpec) -> Self? {
        let path = section.required("path", for: "source of type '\(typeName)'").flatMap { decoder.context.nonEmptyString($0, key: "path") }
        return path.map { FileSourceSpec(path: decoder.relativeToPipelineFile($0), records: section.nonEmptyString("records")) }
    }

    var redactedMembers: [(String, YAMLTextWriter.Value)] {
        var members: [(String, YAMLTextWriter.Value)] = [("path", .string(path))]
        if let records { members.append(("records", .string(records))) }
        return members
    }

    var cacheIdentity: JSONValue {
        ["type": .string(Self.typeName), "path": .string(path), "records": records.map(JSONValue.string) ?? .null]
    }

    /// Reads nothing until the first page is asked for.
    func blueprint(_ build: SourceBuild) throws(ScreensPipeError) -> SourceBlueprint {
        .fetcher(try FileSource(spec: self, keepsRowsAsTexts: build.rows.keepsTexts))
    }
}

extension SourceTypeSpec {
    /// `file`: a local JSON file, paged like a remote list; no network settings apply.
    public static func file(_ spec: FileSourceSpec) -> Self { Self(spec) }
}
