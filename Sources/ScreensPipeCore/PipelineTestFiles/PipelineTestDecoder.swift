import ScreensBus

extension PipelineTestFile {
    /// The largest file of recorded rows or pages read: 256 MiB.
    public static let maximumRecordingSize = 256 << 20

    /// Loads and checks a test file; paths in it (`pipeline`, `rows-file`, `pages-file`)
    /// are relative to the test file's directory. The pipeline itself is loaded when the
    /// cases run, with the file's `env` and each case's `set`.
    ///
    /// - Throws: ``ScreensPipeError``: every problem, each as `file:line:column: message`.
    public static func load(path: String) throws(ScreensPipeError) -> PipelineTestFile {
        let bytes: [UInt8]
        do {
            bytes = try PipelineLoader.readFile(path, what: "test file")
        } catch {
            throw .unreadable(path, reason: error.reason)
        }
        let root = try YAMLReader(file: path).read(bytes)
        let context = DecodingContext()
        let decoded = PipelineTestDecoder(context: context, path: path).decode(root)
        guard let decoded, context.errors.isEmpty else {
            throw ScreensPipeError(sorting: context.errors, file: path, overrides: [], exclusive: [])
        }
        return decoded
    }
}

/// Decodes a test file's node tree, collecting every error (as ``SpecDecoder`` does for
/// pipeline files, with the same messages for the same mistakes).
struct PipelineTestDecoder {
    let context: DecodingContext
    let path: String

    /// `name` relative to the test file, unless absolute.
    func resolve(_ name: String) -> String {
        RelativePath.resolve(name, againstDirectoryOf: path)
    }

    func decode(_ root: YAMLNode) -> PipelineTestFile? {
        guard case .mapping = root, let top = Section(root, name: Section.topLevel, context: context) else {
            context.fail("a test file is a mapping with 'pipeline' and 'cases', found \(root.foundDescription)", at: root.location)
            return nil
        }
        top.checkKeys(["pipeline", "env", "cases"])
        let pipeline = top.required("pipeline").flatMap { context.nonEmptyString($0, key: "pipeline") }
        let variables = top.section("env").map(decodeVariables) ?? [:]
        var cases: [PipelineTestCase] = []
        if let node = top.required("cases") {
            if case .sequence(let sequence) = node {
                if sequence.items.isEmpty { context.fail("'cases' needs at least one case", at: node.location) }
                for (index, item) in sequence.items.enumerated() {
                    if let decoded = decodeCase(item, index: index) { cases.append(decoded) }
                }
            } else {
                context.fail("expected a sequence of cases for 'cases', found \(node.foundDescription)", at: node.location)
            }
        }
        guard let pipeline, context.errors.isEmpty else { return nil }
        return PipelineTestFile(path: path, pipeline: resolve(pipeline), variables: variables, cases: cases)
    }

    private func decodeVariables(_ section: Section) -> [String: String] {
        var variables: [String: String] = [:]
        for pair in section.mapping.pairs {
            if let value = context.string(pair.value, key: "env.\(pair.key.text)") { variables[pair.key.text] = value }
        }
        return variables
    }

    static let inputKeys = ["rows", "rows-file", "pages", "pages-file", "sandbox"]

    private func decodeCase(_ node: YAMLNode, index: Int) -> PipelineTestCase? {
        guard let section = Section(node, name: "cases[\(index)]", context: context) else { return nil }
        section.checkKeys(["name"] + Self.inputKeys + ["count", "set", "expect"])
        let name = section.nonEmptyString("name") ?? "case \(index + 1)"
        let overrides = section["set"].map(decodeOverrides) ?? []
        let given = Self.inputKeys.filter { section.mapping[$0] != nil }
        if given.count > 1 {
            context.fail("a case takes one input, found \(given.joined(separator: " and ")) in \(section.name)", at: section.location)
        }
        var input: PipelineTestInput?
        switch given.first {
        case "rows": input = section["rows"].flatMap { rowList($0, key: "rows") }.map { .rows($0) }
        case "rows-file": input = section["rows-file"].flatMap(readRowsFile).map { .rows($0) }
        case "pages": input = section["pages"].flatMap(inlinePages).map { .pages($0, count: nil) }
        case "pages-file": input = section["pages-file"].flatMap(readPagesFile).map { .pages($0, count: nil) }
        case "sandbox":
            if let value = section.bool("sandbox") {
                if value { input = .sandbox } else { context.fail("'sandbox' is true or left out", at: section.mapping["sandbox"]!.location) }
            }
        default:
            context.fail("a case needs an input: one of \(Self.inputKeys.joined(separator: ", ")) (in \(section.name))", at: section.location)
        }
        if let countNode = section.mapping["count"] {
            let count = section.int("count", atLeast: 0)
            if case .pages(let pages, _)? = input {
                input = .pages(pages, count: count)
            } else if !given.isEmpty {
                context.fail("'count' applies to recorded pages (pages, pages-file) only", at: countNode.location)
            }
        }
        let expectation = section.section("expect").map(decodeExpectation) ?? PipelineTestExpectation()
        guard let input else { return nil }
        return PipelineTestCase(
            name: name, location: section.location, overrides: overrides, input: input, expectation: expectation)
    }

    private func decodeOverrides(_ node: YAMLNode) -> [String] {
        let items: [YAMLNode]
        if case .sequence(let sequence) = node { items = sequence.items } else { items = [node] }
        return items.compactMap { context.nonEmptyString($0, key: "set") }
    }

    private func decodeExpectation(_ section: Section) -> PipelineTestExpectation {
        section.checkKeys(["rows", "row-count", "events", "error"])
        var expectation = PipelineTestExpectation()
        expectation.rows = section["rows"].flatMap { rowList($0, key: "expect.rows") }
        expectation.rowCount = section.int("row-count", atLeast: 0)
        if let node = section["events"] {
            expectation.events = rowList(node, key: "expect.events")
            for case .object(let event) in expectation.events ?? [] where event["event"] == nil {
                context.fail("each expected event names its kind with 'event' (started, response, selected, error, finished)", at: node.location)
                break
            }
            if let events = expectation.events, events.contains(where: { if case .object = $0 { false } else { true } }) {
                context.fail("expected a mapping for each event in 'expect.events'", at: node.location)
            }
        }
        if let node = section["error"] {
            switch node {
            case .scalar:
                expectation.error = context.nonEmptyString(node, key: "error").map { PipelineTestExpectedError(kind: $0) }
            default:
                if let error = Section(node, name: "\(section.name).error", context: context) {
                    error.checkKeys(["kind", "page", "message"])
                    expectation.error = PipelineTestExpectedError(
                        kind: error.nonEmptyString("kind"), page: error.int("page", atLeast: 0), message: error.nonEmptyString("message"))
                }
            }
        }
        return expectation
    }

    /// A sequence as a list of JSON values.
    private func rowList(_ node: YAMLNode, key: String) -> [JSONValue]? {
        guard case .sequence(let sequence) = node else {
            context.fail("expected a sequence for '\(key)', found \(node.foundDescription)", at: node.location)
            return nil
        }
        return sequence.items.map { context.json($0, key: key) }
    }

    private func inlinePages(_ node: YAMLNode) -> [[JSONValue]]? {
        guard case .sequence(let sequence) = node else {
            context.fail("expected a sequence of pages for 'pages', found \(node.foundDescription)", at: node.location)
            return nil
        }
        var pages: [[JSONValue]] = []
        for (index, item) in sequence.items.enumerated() {
            guard let rows = rowList(item, key: "pages[\(index)]") else { return nil }
            pages.append(rows)
        }
        return pages
    }

    /// The JSON document at the file named by `node`, or nil with an error at `node`.
    private func readJSON(_ node: YAMLNode, key: String) -> (file: String, value: [JSONValue])? {
        guard let name = context.nonEmptyString(node, key: key) else { return nil }
        let file = resolve(name)
        do {
            let bytes = try PipelineLoader.readFile(file, limit: PipelineTestFile.maximumRecordingSize, what: "recording")
            do throws(ScreensPipeError) {
                // A JSON array, or JSON lines: the shapes a file source reads.
                return (file, try FileSource.rows(in: bytes, records: nil, path: file, page: 0))
            } catch {
                context.fail("'\(key)': \(error.message)", at: node.location)
            }
        } catch {
            context.fail("'\(key)': cannot read \(file): \(error.reason)", at: node.location)
        }
        return nil
    }

    private func readRowsFile(_ node: YAMLNode) -> [JSONValue]? {
        readJSON(node, key: "rows-file")?.value
    }

    private func readPagesFile(_ node: YAMLNode) -> [[JSONValue]]? {
        guard let (file, values) = readJSON(node, key: "pages-file") else { return nil }
        var pages: [[JSONValue]] = []
        for (index, value) in values.enumerated() {
            guard case .array(let rows) = value else {
                context.fail("'pages-file': \(file) holds pages, each an array of rows; page \(index) is a JSON \(value.typeName)", at: node.location)
                return nil
            }
            pages.append(rows)
        }
        return pages
    }
}
