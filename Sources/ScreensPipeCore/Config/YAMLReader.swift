internal import CLibYAML

/// Reads YAML text into a ``YAMLNode`` tree with libyaml's event parser.
///
/// One document only; anchors resolve to copies of the anchored node, and the total number
/// of nodes copied through aliases is capped so an exponential "billion laughs" file fails
/// at once instead of exhausting memory. Merge keys (`<<`) are supported: the merged
/// mapping's keys are added unless the mapping writes them itself.
struct YAMLReader {
    /// The most nodes that aliases may expand to in one file.
    static let aliasExpansionLimit = 10_000
    /// The most scalar text (UTF-8 bytes) that aliases may copy in one file: a count of
    /// nodes alone lets one 1 MiB scalar aliased 3,000 times take gigabytes.
    static let aliasExpansionByteLimit = 4 << 20
    /// The deepest nesting accepted; deeper files are surely not pipelines.
    static let nestingLimit = 256

    /// The file name used in locations.
    var file: String

    /// Parses `bytes` (UTF-8, UTF-16 with a BOM) into the document's root node.
    func read(_ bytes: [UInt8]) throws(ScreensPipeError) -> YAMLNode {
        if bytes.isEmpty { throw emptyFile }
        let result: Result<YAMLNode?, ScreensPipeError> = bytes.withUnsafeBufferPointer { buffer in
            var parser = yaml_parser_t()
            guard yaml_parser_initialize(&parser) == 1 else {
                return .failure(ScreensPipeError.configuration("\(file): cannot start the YAML parser"))
            }
            defer { yaml_parser_delete(&parser) }
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var builder = TreeBuilder(file: file, source: buffer)
            do throws(ScreensPipeError) {
                while true {
                    var event = yaml_event_t()
                    guard yaml_parser_parse(&parser, &event) == 1 else {
                        return .failure(syntaxError(parser, bytes: buffer))
                    }
                    defer { yaml_event_delete(&event) }
                    if try builder.consume(&event) { break }
                }
            } catch {
                return .failure(error)
            }
            return .success(builder.root)
        }
        guard let root = try result.get(), !root.isNull else { throw emptyFile }
        return root
    }

    private var emptyFile: ScreensPipeError {
        ScreensPipeError.configuration("empty pipeline file", at: SourceLocation(file: file, line: 1, column: 1))
    }

    /// libyaml's reader, scanner and parser errors as `file:line:column: problem (context)`.
    private func syntaxError(_ parser: yaml_parser_t, bytes: UnsafeBufferPointer<UInt8>) -> ScreensPipeError {
        let problem = parser.problem.map { String(cString: $0) } ?? "invalid YAML"
        let location: SourceLocation
        if parser.error == YAML_READER_ERROR {
            // Encoding errors carry a byte offset, not a mark.
            location = Self.location(ofByte: parser.problem_offset, in: bytes, file: file)
        } else {
            location = SourceLocation(file: file, mark: parser.problem_mark)
        }
        var message = problem
        let context = parser.context.map { String(cString: $0) }
        if let context {
            let start = SourceLocation(file: file, mark: parser.context_mark)
            message += " (\(context) that started at line \(start.line), column \(start.column))"
        }
        let line = Self.line(location.line, of: bytes)
        // `{ a: ${X} }`: `{` and `}` end a plain scalar inside flow style, so the reference breaks it.
        if context?.contains("flow") == true, line.contains("${") {
            message += "; quote ${...} inside { } or [ ], or use block style"
        } else if let hint = YAMLSyntaxHint.hint(problem: problem, line: line) {
            message += "; \(hint)"
        }
        return ScreensPipeError.configuration(message, at: location)
    }

    /// The text of 1-based line `number`.
    private static func line(_ number: Int, of bytes: UnsafeBufferPointer<UInt8>) -> String {
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        guard number >= 1, number <= lines.count else { return "" }
        return String(decoding: lines[number - 1], as: UTF8.self)
    }

    private static func location(ofByte offset: Int, in bytes: UnsafeBufferPointer<UInt8>, file: String) -> SourceLocation {
        var line = 1
        var column = 1
        for byte in bytes.prefix(offset) {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return SourceLocation(file: file, line: line, column: column)
    }
}

extension SourceLocation {
    /// A libyaml mark (0-based) as a 1-based location.
    init(file: String, mark: yaml_mark_t) {
        self.init(file: file, line: Int(mark.line) + 1, column: Int(mark.column) + 1)
    }
}

/// Assembles nodes from parser events with an explicit stack (no recursion, so deep files
/// cannot overflow the call stack).
///
/// The open collections are mutated in place on the stack (`stack[top].pairs.append`), never
/// copied out and pushed back: a copy would share the array's buffer and make every append
/// copy it, which made a 50,000-key mapping take 30 s to load.
private struct TreeBuilder {
    private struct Frame {
        enum Kind { case mapping, sequence }
        var kind: Kind
        var location: SourceLocation
        var anchor: String?
        var pairs: [YAMLMapping.Pair] = []
        var items: [YAMLNode] = []
        var pendingKey: YAMLScalar?
    }

    /// What an anchored node costs each time an alias copies it.
    private struct Anchored {
        var node: YAMLNode
        var nodes: Int
        var bytes: Int
    }

    let file: String
    /// The file's bytes, valid while the builder runs: where a literal block's text starts.
    let source: UnsafeBufferPointer<UInt8>
    /// The byte offset of each line's start, found once, on the first literal block.
    private var lineStarts: [Int]?
    private(set) var root: YAMLNode?
    private var stack: [Frame] = []
    private var anchors: [String: Anchored] = [:]
    private var aliasExpansion = 0
    private var aliasExpansionBytes = 0
    private var documents = 0

    init(file: String, source: UnsafeBufferPointer<UInt8>) {
        self.file = file
        self.source = source
    }

    /// Where the text of a literal block (`where: |`) starts: the line after the indicator
    /// (0-based `line`), at the indentation of the block's first non-blank line; nil when
    /// every line up to `lastLine` is blank. Errors inside the text then point at its lines.
    private mutating func blockTextStart(indicatorLine line: Int, lastLine: Int) -> SourceLocation? {
        if lineStarts == nil {
            var starts = [0]
            for (offset, byte) in source.enumerated() where byte == UInt8(ascii: "\n") { starts.append(offset + 1) }
            lineStarts = starts
        }
        guard let starts = lineStarts else { return nil }
        var index = line + 1
        while index <= lastLine, index < starts.count {
            var offset = starts[index]
            while offset < source.count, source[offset] == UInt8(ascii: " ") { offset += 1 }
            if offset < source.count, source[offset] != UInt8(ascii: "\n"), source[offset] != UInt8(ascii: "\r") {
                // The text starts on the line after the indicator (leading blank lines are
                // part of it), indented like its first non-blank line.
                return SourceLocation(file: file, line: line + 2, column: offset - starts[index] + 1)
            }
            index += 1
        }
        return nil
    }

    /// Takes one event; returns true at the end of the stream.
    mutating func consume(_ event: inout yaml_event_t) throws(ScreensPipeError) -> Bool {
        let location = SourceLocation(file: file, mark: event.start_mark)
        switch event.type {
        case YAML_STREAM_START_EVENT, YAML_DOCUMENT_END_EVENT, YAML_NO_EVENT:
            return false
        case YAML_STREAM_END_EVENT:
            return true
        case YAML_DOCUMENT_START_EVENT:
            documents += 1
            if documents > 1 {
                throw error("a pipeline file holds one YAML document; found a second one", at: location)
            }
            return false
        case YAML_SCALAR_EVENT:
            try rejectTag(screens_yaml_scalar_tag(&event), at: location)
            let length = screens_yaml_scalar_length(&event)
            let text = screens_yaml_scalar_value(&event).map { pointer in
                pointer.withMemoryRebound(to: UInt8.self, capacity: length) {
                    String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
                }
            } ?? ""
            var scalar = YAMLScalar(
                text: text, style: Self.style(screens_yaml_scalar_style(&event)), location: location,
                isSingleLine: event.start_mark.line == event.end_mark.line)
            if scalar.style == .literal {
                scalar.blockTextLocation = blockTextStart(indicatorLine: Int(event.start_mark.line), lastLine: Int(event.end_mark.line))
            }
            let node = YAMLNode.scalar(scalar)
            if let anchor = Self.string(screens_yaml_scalar_anchor(&event)) {
                anchors[anchor] = Anchored(node: node, nodes: 1, bytes: text.utf8.count)
            }
            try attach(node)
        case YAML_ALIAS_EVENT:
            let name = Self.string(screens_yaml_alias_anchor(&event)) ?? ""
            guard let anchored = anchors[name] else {
                throw error("unknown alias '*\(name)': no anchor '&\(name)' is defined before it", at: location)
            }
            aliasExpansion += anchored.nodes
            aliasExpansionBytes += anchored.bytes
            if aliasExpansion > YAMLReader.aliasExpansionLimit {
                throw error(
                    "aliases expand to more than \(YAMLReader.aliasExpansionLimit) nodes; refusing to expand '*\(name)'",
                    at: location)
            }
            if aliasExpansionBytes > YAMLReader.aliasExpansionByteLimit {
                throw error(
                    "aliases expand to more than \(YAMLReader.aliasExpansionByteLimit >> 20) MiB of text; refusing to expand '*\(name)'",
                    at: location)
            }
            try attach(anchored.node)
        case YAML_MAPPING_START_EVENT:
            try rejectTag(screens_yaml_mapping_tag(&event), at: location)
            let anchor = Self.string(screens_yaml_mapping_anchor(&event))
            try push(Frame(kind: .mapping, location: location, anchor: anchor), at: location)
        case YAML_SEQUENCE_START_EVENT:
            try rejectTag(screens_yaml_sequence_tag(&event), at: location)
            let anchor = Self.string(screens_yaml_sequence_anchor(&event))
            try push(Frame(kind: .sequence, location: location, anchor: anchor), at: location)
        case YAML_MAPPING_END_EVENT, YAML_SEQUENCE_END_EVENT:
            guard let frame = stack.popLast() else { return false }
            let node: YAMLNode
            switch frame.kind {
            case .mapping: node = .mapping(try resolvingMerges(YAMLMapping(pairs: frame.pairs, location: frame.location)))
            case .sequence: node = .sequence(YAMLSequence(items: frame.items, location: frame.location))
            }
            if let anchor = frame.anchor { anchors[anchor] = Anchored(node: node, nodes: node.nodeCount, bytes: node.textBytes) }
            try attach(node)
        default:
            return false
        }
        return false
    }

    private mutating func push(_ frame: Frame, at location: SourceLocation) throws(ScreensPipeError) {
        if stack.count >= YAMLReader.nestingLimit {
            throw error("nesting deeper than \(YAMLReader.nestingLimit) levels", at: location)
        }
        stack.append(frame)
    }

    private mutating func attach(_ node: YAMLNode) throws(ScreensPipeError) {
        guard !stack.isEmpty else {
            root = node
            return
        }
        let top = stack.count - 1
        switch stack[top].kind {
        case .mapping:
            if let key = stack[top].pendingKey {
                stack[top].pairs.append(YAMLMapping.Pair(key: key, value: node))
                stack[top].pendingKey = nil
            } else {
                guard case .scalar(let key) = node else {
                    throw error("a mapping key must be a scalar, found \(node.foundDescription)", at: node.location)
                }
                stack[top].pendingKey = key
            }
        case .sequence:
            stack[top].items.append(node)
        }
    }

    /// Applies `<<: *base` (or `<<: [*a, *b]`): keys written in the mapping win, then earlier merges.
    private func resolvingMerges(_ mapping: YAMLMapping) throws(ScreensPipeError) -> YAMLMapping {
        func isMerge(_ pair: YAMLMapping.Pair) -> Bool { pair.key.style == .plain && pair.key.text == "<<" }
        guard mapping.pairs.contains(where: isMerge) else { return mapping }
        var seen = Set(mapping.pairs.filter { !isMerge($0) }.map(\.key.text))
        var pairs: [YAMLMapping.Pair] = []
        for pair in mapping.pairs {
            guard isMerge(pair) else {
                pairs.append(pair)
                continue
            }
            var sources: [YAMLMapping] = []
            switch pair.value {
            case .mapping(let source):
                sources = [source]
            case .sequence(let sequence):
                for item in sequence.items {
                    guard case .mapping(let source) = item else {
                        throw error("the merge key '<<' takes a mapping or a sequence of mappings", at: item.location)
                    }
                    sources.append(source)
                }
            case .scalar:
                throw error("the merge key '<<' takes a mapping or a sequence of mappings", at: pair.value.location)
            }
            for source in sources {
                for merged in source.pairs where seen.insert(merged.key.text).inserted {
                    pairs.append(merged)
                }
            }
        }
        return YAMLMapping(pairs: pairs, location: mapping.location)
    }

    private func rejectTag(_ tag: UnsafePointer<CChar>?, at location: SourceLocation) throws(ScreensPipeError) {
        guard let tag = Self.string(tag) else { return }
        throw error("YAML tags are not supported (found '\(tag)'); quote a value to make it a string", at: location)
    }

    private func error(_ message: String, at location: SourceLocation) -> ScreensPipeError {
        ScreensPipeError.configuration(message, at: location)
    }

    private static func string(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    private static func style(_ style: yaml_scalar_style_t) -> YAMLScalar.Style {
        switch style {
        case YAML_SINGLE_QUOTED_SCALAR_STYLE: .singleQuoted
        case YAML_DOUBLE_QUOTED_SCALAR_STYLE: .doubleQuoted
        case YAML_LITERAL_SCALAR_STYLE: .literal
        case YAML_FOLDED_SCALAR_STYLE: .folded
        default: .plain
        }
    }
}
