import Testing
@testable import ScreensPipeCore
import ScreensPipe

@Suite struct YAMLReaderTests {
    private func read(_ yaml: String) throws(ScreensPipeError) -> YAMLNode {
        try YAMLReader(file: "r.yaml").read(Array(yaml.utf8))
    }

    private func readError(_ yaml: String) -> String? {
        do {
            _ = try read(yaml)
            return nil
        } catch {
            #expect(error.code == .configuration)
            return error.description
        }
    }

    @Test func nodesCarryOneBasedLinesAndColumns() throws {
        let root = try read("a: 1\nb:\n  - x\n  - 'y z'\n")
        guard case .mapping(let mapping) = root else {
            Issue.record("expected a mapping")
            return
        }
        #expect(mapping.pairs.map(\.key.text) == ["a", "b"])
        #expect(mapping.pairs[0].value.location == ScreensPipeCore.SourceLocation(file: "r.yaml", line: 1, column: 4))
        guard case .sequence(let sequence) = mapping.pairs[1].value, case .scalar(let quoted) = sequence.items[1] else {
            Issue.record("expected a sequence of scalars")
            return
        }
        #expect(sequence.items[0].location == ScreensPipeCore.SourceLocation(file: "r.yaml", line: 3, column: 5))
        #expect(quoted.text == "y z" && quoted.style == .singleQuoted)
        #expect(quoted.location.column == 5 && quoted.textLocation.column == 6)
    }

    @Test func anchorsAndAliasesResolveToTheAnchoredNode() throws {
        let root = try read("base: &b { x: 1, y: [2, 3] }\ncopy: *b\n")
        guard case .mapping(let mapping) = root else {
            Issue.record("expected a mapping")
            return
        }
        #expect(mapping["copy"] == mapping["base"])
    }

    @Test func mergeKeysAddKeysTheMappingDoesNotWrite() throws {
        let spec = try loadPipeline(
            """
            source:
              type: file
              path: rows.json
              pagination:
                <<: { page-size: 10, prefetch: 2 }
                prefetch: 8
            """)
        #expect(spec.source.pagination.pageSize == 10)
        #expect(spec.source.pagination.prefetch == 8)
    }

    @Test func billionLaughsFailsFast() {
        var yaml = "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
        for level in 1...9 {
            let previous = "*a\(level - 1)"
            yaml += "a\(level): &a\(level) [\(Array(repeating: previous, count: 10).joined(separator: ", "))]\n"
        }
        #expect(readError(yaml)?.hasPrefix("r.yaml:4:") == true)
        #expect(readError(yaml)?.contains("aliases expand to more than 10000 nodes") == true)
    }

    @Test func unknownAliasIsAnError() {
        #expect(readError("a: *nope\n") == "r.yaml:1:4: unknown alias '*nope': no anchor '&nope' is defined before it")
    }

    @Test func syntaxErrorsHaveLibyamlPositionsAndAHint() {
        #expect(
            readError("source:\n  type: rest\n url: x\n")
                == "r.yaml:3:2: did not find expected key (while parsing a block mapping that started at line 1, column 1); check this line's indentation: the keys of one mapping start in the same column, and a line indented less than its neighbours ends their mapping")
        #expect(
            readError("a: 'unterminated\n")
                == "r.yaml:2:1: found unexpected end of stream (while scanning a quoted scalar that started at line 1, column 4); a quote or bracket is opened and never closed")
        #expect(
            readError("a: b: c\n")
                == "r.yaml:1:5: mapping values are not allowed in this context; a value that holds ': ' needs quotes (key: \"a: b\"); or this line is indented deeper than the key above it, which makes it part of that key's value")
        #expect(
            readError("a:\n\tb: 1\n")
                == "r.yaml:2:1: found character that cannot start any token (while scanning for the next token that started at line 2, column 1); YAML indents with spaces, not tabs: replace the tabs on this line with spaces")
    }

    /// The usual indentation slips, each named at libyaml's position with what to check.
    @Test(arguments: [
        // A key indented deeper than the one above it continues that key's value.
        ("source:\n  type: rest\n    url: /x\n", "r.yaml:3:8: mapping values are not allowed in this context", "indented deeper than the key above it"),
        // A list item out of line with the items above it.
        ("sink:\n  fields:\n    - a\n   - b\n", "r.yaml:4:4: did not find expected key", "check this line's indentation"),
        // A list on the key's own line.
        ("fields: - a\n", "r.yaml:1:9: block sequence entries are not allowed in this context", "a list starts on the line after its key"),
    ])
    func indentationMistakesGetAHint(yaml: String, position: String, hint: String) {
        let message = readError(yaml) ?? ""
        #expect(message.hasPrefix(position), "\(message)")
        #expect(message.contains(hint), "\(message)")
    }

    @Test func unquotedReferenceInFlowStyleGetsAHint() {
        let message = configErrors("source: { type: file, path: ${P} }")
        #expect(message.count == 1)
        #expect(message.first?.hasSuffix("; quote ${...} inside { } or [ ], or use block style") == true)
    }

    @Test func invalidUTF8IsReportedWithAPosition() {
        var bytes = Array("a: ok\nb: ".utf8)
        bytes += [0xFF, 0xFE, 0x0A]
        #expect(throws: ScreensPipeError.self) { try YAMLReader(file: "r.yaml").read(bytes) }
        do {
            _ = try YAMLReader(file: "r.yaml").read(bytes)
        } catch {
            #expect(error.location == ScreensPipeCore.SourceLocation(file: "r.yaml", line: 2, column: 4))
        }
    }

    @Test func multipleDocumentsAreRejected() {
        #expect(readError("a: 1\n---\nb: 2\n") == "r.yaml:2:1: a pipeline file holds one YAML document; found a second one")
    }

    @Test(arguments: ["", "\n", "# only a comment\n", "---\n", "~\n"])
    func emptyFileIsAnError(text: String) {
        #expect(readError(text) == "r.yaml:1:1: empty pipeline file")
    }

    @Test func tagsAreRejected() {
        #expect(readError("a: !!str 1\n") == "r.yaml:1:4: YAML tags are not supported (found 'tag:yaml.org,2002:str'); quote a value to make it a string")
    }

    @Test func deepNestingIsAnErrorNotACrash() {
        let yaml = String(repeating: "[", count: 10_000)
        #expect(readError(yaml)?.contains("nesting deeper than 256 levels") == true)
    }
}
