import ScreensBus
import Testing
@testable import ScreensPipeCore
import ScreensPipe

@Suite("fan-out: placeholders resolved from parent rows")
struct RowPlaceholderTests {
    private func template(_ yaml: String) throws -> YAMLMapping {
        guard case .mapping(let mapping) = try YAMLReader(file: "<test>").read(Array(yaml.utf8)) else {
            Issue.record("not a mapping")
            return YAMLMapping(pairs: [], location: SourceLocation(file: "", line: 1, column: 1))
        }
        return mapping
    }

    private func lineage(_ row: JSONValue, name: String = "site", index: Int = 2) -> Lineage {
        Lineage().adding(Lineage.Frame(name: name, row: index, value: row, shownFields: ["id"]))
    }

    private func scalar(_ mapping: YAMLMapping, _ path: String...) -> YAMLScalar? {
        var node: YAMLNode = .mapping(mapping)
        for key in path {
            guard case .mapping(let inner) = node, let next = inner[key] else { return nil }
            node = next
        }
        if case .scalar(let scalar) = node { return scalar }
        return nil
    }

    private func failure(_ yaml: String, _ row: JSONValue) throws -> String? {
        do {
            _ = try RowPlaceholders.resolve(try template(yaml), lineage: lineage(row))
            return nil
        } catch let error as ScreensPipeError {
            return error.message
        }
    }

    @Test("in a path a value is one percent-encoded segment: '/', '?', '#', '%' and spaces stay data")
    func pathSegments() throws {
        let resolved = try RowPlaceholders.resolve(try template("path: /o/sites/${site.id}/contents"), lineage: lineage(["id": "a/b?c#d%e f"]))
        #expect(scalar(resolved, "path")?.text == "/o/sites/a%2Fb%3Fc%23d%25e%20f/contents")
        #expect(URLText.encode("Añ~._-") == "A%C3%B1~._-")
    }

    @Test("'..', '.' and empty values are refused in a path")
    func dotSegments() throws {
        for value in ["..", ".", ""] {
            let message = try failure("path: /o/sites/${site.id}", ["id": .string(value)])
            #expect(message?.contains("the value for ${site.id} is '\(value)', which as a path segment would change the path") == true, "\(value): \(message ?? "nil")")
        }
        // Dots inside a longer value are data.
        let resolved = try RowPlaceholders.resolve(try template("url: http://h/${site.id}"), lineage: lineage(["id": "../x"]))
        #expect(scalar(resolved, "url")?.text == "http://h/..%2Fx")
    }

    @Test("a value that is not a scalar, null, missing, huge or holding NUL is an error naming the placeholder")
    func hostileValues() throws {
        let yaml = "query: { q: \"${site.id}\" }"
        #expect(try failure(yaml, ["id": ["a": 1]])?.contains("the value for ${site.id} is an object") == true)
        #expect(try failure(yaml, ["id": [1, 2]])?.contains("is an array") == true)
        #expect(try failure(yaml, ["id": .null])?.contains("is null") == true)
        #expect(try failure(yaml, ["name": "x"])?.contains("no field 'id' for ${site.id}") == true)
        let huge = String(repeating: "x", count: 1 << 20)
        #expect(try failure(yaml, ["id": .string(huge)])?.contains("more than the 2048") == true)
        #expect(try failure(yaml, ["id": "a\u{0}b"])?.contains("NUL") == true)
    }

    @Test("a scalar that is one placeholder keeps the value's JSON type; text around makes a string")
    func types() throws {
        let yaml = "params: { groupId: \"${site.id}\", key: \"${site.key}\", label: \"site ${site.id}\", flag: \"${site.on}\" }"
        let row: JSONValue = ["id": .int(20143), "key": "20144", "on": .bool(true)]
        let resolved = try RowPlaceholders.resolve(try template(yaml), lineage: lineage(row))
        #expect(scalar(resolved, "params", "groupId")?.text == "20143")
        #expect(scalar(resolved, "params", "groupId")?.style == .plain)
        #expect(scalar(resolved, "params", "key")?.text == "20144")
        #expect(scalar(resolved, "params", "key")?.style == .doubleQuoted)
        #expect(scalar(resolved, "params", "label")?.text == "site 20143")
        #expect(scalar(resolved, "params", "flag")?.text == "true")
        #expect(scalar(resolved, "params", "flag")?.style == .plain)
        // 64-bit ids and big numbers keep their text.
        let big = try RowPlaceholders.resolve(try template(yaml), lineage: lineage(["id": .number("123456789012345678901234567890"), "key": "k", "on": .bool(false)]))
        #expect(scalar(big, "params", "groupId")?.text == "123456789012345678901234567890")
    }

    @Test("the lineage names each parent with the fields placeholders read, values cut short")
    func lineageDescription() {
        let long = String(repeating: "y", count: 500)
        let chain = lineage(["id": .int(20144)], index: 1)
            .adding(Lineage.Frame(name: "folder", row: 0, value: ["folderId": .string(long)], shownFields: ["folderId"]))
        #expect(chain.description.hasPrefix("site #1 (id=20144) > folder #0 (folderId=yyyy"))
        #expect(chain.description.count < 120)
        guard case .object(let json) = chain.json, case .object(let folder)? = json["folder"], case .string(let shown)? = folder["folderId"] else {
            Issue.record("unexpected parent JSON \(chain.json)")
            return
        }
        #expect(shown.count < 100)
    }
}

@Suite("fan-out: one rule per destination of an interpolated value")
struct ValueDestinationTests {
    @Test("a header refuses every control character, CRLF as a pair included; other text passes as written")
    func header() throws {
        for hostile in ["a\r\nb", "a\rb", "a\nb", "a\u{0}b", "\t", "a\u{1B}b", "a\u{7F}", "a\u{85}b", "\r\n"] {
            #expect(throws: ValueDestination.Refusal.self, "\(hostile.debugDescription)") { try ValueDestination.header.admit(hostile) }
        }
        #expect(try ValueDestination.header.admit("Bearer ab+/= ü ${x}") == "Bearer ab+/= ü ${x}")
    }

    @Test("a path segment is percent-encoded; '.', '..' and empty are refused")
    func pathSegment() throws {
        #expect(try ValueDestination.pathSegment.admit("../a b?#%\\") == "..%2Fa%20b%3F%23%25%5C")
        for moving in ["", ".", ".."] {
            #expect(throws: ValueDestination.Refusal.self) { try ValueDestination.pathSegment.admit(moving) }
        }
    }

    @Test("query and body values are the text, encoded once by the wire format")
    func queryAndBody() throws {
        #expect(try ValueDestination.query.admit("a&b=c#") == "a&b=c#")
        #expect(try ValueDestination.body.admit("\"}]x") == "\"}]x")
        #expect(ValueDestination(sourceKey: "headers") == .header)
        #expect(ValueDestination(sourceKey: "auth") == .header)
        #expect(ValueDestination(sourceKey: "url") == .pathSegment)
        #expect(ValueDestination(sourceKey: "server") == .pathSegment)
        #expect(ValueDestination(sourceKey: "query") == .query)
        #expect(ValueDestination(sourceKey: "params") == .body)
        #expect(ValueDestination(sourceKey: "records") == .setting)
    }

    @Test("a parent value that would make a page placeholder the paginator fills ({offset} in a body, {cursor} in a query) is refused")
    func pagePlaceholders() throws {
        func resolving(_ yaml: String, _ value: String) throws -> String? {
            guard case .mapping(let template) = try YAMLReader(file: "<test>").read(Array(yaml.utf8)) else { return "not a mapping" }
            let lineage = Lineage().adding(Lineage.Frame(name: "site", row: 0, value: ["id": .string(value)], shownFields: ["id"]))
            do {
                _ = try RowPlaceholders.resolve(template, lineage: lineage)
                return nil
            } catch {
                return error.message
            }
        }
        #expect(try resolving("body: { q: \"${site.id}\" }", "{offset}")?.contains("which the paginator would replace") == true)
        #expect(try resolving("body: { q: [\"${site.id}\"] }", "{cursor}")?.contains("'{cursor}'") == true)
        #expect(try resolving("query: { since: \"${site.id}\" }", "x{cursor}")?.contains("an incremental run would replace") == true)
        // Text around it, or another destination, is data as usual.
        #expect(try resolving("body: { q: \"${site.id}\" }", "x{offset}") == nil)
        #expect(try resolving("headers: { X-Q: \"${site.id}\" }", "{cursor}") == nil)
        // The template's own placeholders stay the paginator's.
        #expect(try resolving("body: { q: \"${site.id}\", from: \"{offset}\" }", "a") == nil)
    }

    @Test("a header placeholder with CRLF is refused before the source is decoded, naming the placeholder")
    func headerPlaceholder() throws {
        guard case .mapping(let template) = try YAMLReader(file: "<test>").read(Array("headers: { X-Site: \"${site.name}\" }".utf8)) else {
            Issue.record("not a mapping")
            return
        }
        let lineage = Lineage().adding(Lineage.Frame(name: "site", row: 0, value: ["name": "a\r\nHost: evil"], shownFields: ["name"]))
        #expect(throws: ScreensPipeError.self) { try RowPlaceholders.resolve(template, lineage: lineage) }
        do {
            _ = try RowPlaceholders.resolve(template, lineage: lineage)
        } catch {
            #expect(error.message.contains("the value for ${site.name} holds the control character U+000D"), "\(error.message)")
        }
    }
}

@Suite("config: a written header value passes the header rule")
struct WrittenHeaderValueTests {
    @Test("a header value from the environment holding CRLF, a lone CR or LF, ESC or NUL is refused at its position")
    func controlCharacters() throws {
        for hostile in ["a\r\nX-Injected: 1", "a\rb", "a\nb", "a\u{1B}b", "a\u{7F}b"] {
            let yaml = "source: { type: rest, server: \"http://127.0.0.1:1\", url: /x, paginate: { style: next-link }, headers: { X-A: \"${EVIL}\" } }"
            #expect(throws: ScreensPipeError.self, "\(hostile.debugDescription)") {
                try PipelineLoader(environment: ["EVIL": hostile]).load(yaml: yaml)
            }
            do {
                _ = try PipelineLoader(environment: ["EVIL": hostile]).load(yaml: yaml)
            } catch {
                #expect(error.errors.first?.message.contains("the value of header 'X-A' must be one line: it holds the control character U+") == true, "\(error.errors)")
            }
        }
        #expect(throws: Never.self) { try PipelineLoader(environment: ["EVIL": "fine value ü"]).load(yaml: "source: { type: rest, server: \"http://127.0.0.1:1\", url: /x, paginate: { style: next-link }, headers: { X-A: \"${EVIL}\" } }") }
    }
}
