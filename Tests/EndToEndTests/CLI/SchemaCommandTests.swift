import Foundation
import Testing

/// `screens-pipe schema`: the checked-in schemas are what the command prints; every sample
/// pipeline names the schema in a modeline and validates against it (with Python's
/// jsonschema, an independent validator); real `--events` lines validate against the
/// events schema.
@Suite("screens-pipe schema")
struct SchemaCommandTests {
    static let pipelineSchema = "docs/schemas/pipeline.schema.json"
    static let eventsSchema = "docs/schemas/events.schema.json"

    @Test func theCheckedInSchemasAreTheGeneratedOnes() async throws {
        for (arguments, file) in [(["schema"], Self.pipelineSchema), (["schema", "--events"], Self.eventsSchema)] {
            let result = try await CommandRunner.run(arguments)
            #expect(result.status == 0)
            let checkedIn = try String(contentsOf: CommandRunner.packageRoot.appendingPathComponent(file), encoding: .utf8)
            #expect(result.stdoutText == checkedIn, "\(file) is stale: run screens-pipe \(arguments.joined(separator: " ")) > \(file)")
        }
    }

    static func samplePipelines() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: CommandRunner.packageRoot.appendingPathComponent("pipelines").path)
            .filter { $0.hasSuffix(".yaml") }.sorted().map { "pipelines/\($0)" }
    }

    @Test func everySamplePipelineNamesTheSchemaInAModeline() throws {
        for file in try Self.samplePipelines() {
            let text = try String(contentsOf: CommandRunner.packageRoot.appendingPathComponent(file), encoding: .utf8)
            #expect(text.hasPrefix("# yaml-language-server: $schema=../docs/schemas/pipeline.schema.json\n"), "\(file)")
        }
    }

    /// Validates each YAML file against the schema; prints `ok FILE` or `bad FILE: message`.
    static let validateYAML = """
        import json, sys, yaml, jsonschema
        schema = json.load(open(sys.argv[1]))
        jsonschema.Draft7Validator.check_schema(schema)
        validator = jsonschema.Draft7Validator(schema)
        for path in sys.argv[2:]:
            errors = sorted(validator.iter_errors(yaml.safe_load(open(path))), key=str)
            print(("ok " + path) if not errors else ("bad " + path + ": " + errors[0].message))
        """

    @Test func samplePipelinesAndStartersValidateAndMistakesDoNot() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        var files = try Self.samplePipelines().map { CommandRunner.packageRoot.appendingPathComponent($0).path }
        for type in ["liferay-jsonws", "liferay-headless", "rest", "file"] {
            let path = directory.appendingPathComponent("\(type).yaml").path
            #expect(try await CommandRunner.run(["init", "--type", type, path]).status == 0)
            files.append(path)
        }
        let mistakes = [
            ("misindented.yaml", "source:\n  type: file\n  path: x.json\nretry: { attempts: 2 }\n"),
            ("wrong-type-key.yaml", "source:\n  type: file\n  path: x.json\n  server: https://example.com\n"),
            ("bad-policy.yaml", "source: { type: file, path: x.json }\ncache: { policy: sometimes }\n"),
            ("bad-size.yaml", "source: { type: file, path: x.json, pagination: { page-size: 0 } }\n"),
        ]
        for (name, text) in mistakes {
            try text.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        let script = directory.appendingPathComponent("validate.py")
        try Self.validateYAML.write(to: script, atomically: true, encoding: .utf8)
        let schema = CommandRunner.packageRoot.appendingPathComponent(Self.pipelineSchema).path
        let result = try await CommandRunner.shell(
            "python3 \(script.path) \(schema) \(files.joined(separator: " ")) "
                + mistakes.map { directory.appendingPathComponent($0.0).path }.joined(separator: " "))
        #expect(result.status == 0, "python3 with jsonschema and yaml (make setup installs them): \(result.stderr)")
        for file in files { #expect(result.stdoutLines.contains("ok \(file)"), "\(result.stdoutText)") }
        for (name, _) in mistakes {
            #expect(result.stdoutLines.contains { $0.hasPrefix("bad \(directory.appendingPathComponent(name).path): ") }, "\(result.stdoutText)")
        }
    }

    @Test func realEventLinesValidateAgainstTheEventsSchema() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        let cache = ["SCREENS_PIPE_CACHE_DIR": directory.appendingPathComponent("cache").path]
        var lines: [String] = []
        for arguments in [
            ["run", "pipelines/bookmarks.yaml", "--events"],
            ["run", "pipelines/bookmarks.yaml", "--events", "--policy", "cache-and-remote", "--limit", "60"],
            ["run", "pipelines/offline-bookmarks.yaml", "--events"],
            ["run", "pipelines/bookmarks.yaml", "--events", "--set", "convert.model=web-content"],
        ] {
            let result = try await CommandRunner.run(arguments, environment: cache)
            lines += result.stdoutLines
        }
        let kinds = Set(lines.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))).flatMap { ($0 as? [String: Any])?["event"] as? String }
        })
        #expect(kinds == ["started", "response", "selected", "error", "finished"])
        let events = directory.appendingPathComponent("events.jsonl")
        try (lines.joined(separator: "\n") + "\n").write(to: events, atomically: true, encoding: .utf8)
        let script = """
            import json, sys, jsonschema
            validator = jsonschema.Draft7Validator(json.load(open(sys.argv[1])))
            bad = [(line, e.message) for line in open(sys.argv[2]) for e in validator.iter_errors(json.loads(line))]
            print(len(bad), bad[:3])
            """
        let schema = CommandRunner.packageRoot.appendingPathComponent(Self.eventsSchema).path
        let result = try await CommandRunner.shell("python3 -c '\(script)' \(schema) \(events.path)")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText.hasPrefix("0 []"), "\(result.stdoutText)")
        // The schema is strict: an event with a field it does not know fails.
        let extra = directory.appendingPathComponent("extra.jsonl")
        try #"{"event":"started","pipeline":"p","source":"s","surprise":1}"#.appending("\n").write(to: extra, atomically: true, encoding: .utf8)
        let strict = try await CommandRunner.shell("python3 -c '\(script)' \(schema) \(extra.path)")
        #expect(strict.stdoutText.hasPrefix("1 "), "\(strict.stdoutText)")
    }
}
