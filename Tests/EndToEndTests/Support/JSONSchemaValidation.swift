import Foundation
import ScreensBus

/// Checks JSON texts against a JSON Schema file of the package with Python's jsonschema, an
/// independent, well-kept validator that picks the draft the schema names (`make setup`
/// installs python3-jsonschema). One Python process checks every text.
enum JSONSchemaValidation {
    /// For each text, in order, the validator's messages: empty when the text matches, `not
    /// JSON` when it does not parse. Throws when the schema itself is invalid or Python fails.
    static func problems(schema file: String, texts: [String]) async throws -> [[String]] {
        let directory = try CommandRunner.temporaryDirectory()
        let input = directory.appendingPathComponent("texts.jsonl")
        // One text per line: JSON texts written by the tool never hold a raw newline.
        try (texts.joined(separator: "\n") + "\n").write(to: input, atomically: true, encoding: .utf8)
        let script = directory.appendingPathComponent("check.py")
        try """
            import json, sys
            from jsonschema.validators import validator_for
            schema = json.load(open(sys.argv[1]))
            cls = validator_for(schema)
            cls.check_schema(schema)
            validator = cls(schema)
            out = []
            for line in open(sys.argv[2]).read().split("\\n")[:-1]:
                try:
                    value = json.loads(line)
                except ValueError:
                    out.append(["not JSON"])
                    continue
                out.append([e.message for e in validator.iter_errors(value)])
            print(json.dumps(out))
            """.write(to: script, atomically: true, encoding: .utf8)
        let schema = CommandRunner.packageRoot.appendingPathComponent(file).path
        let result = try await CommandRunner.shell(#"python3 "$SCRIPT" "$SCHEMA" "$INPUT""#, environment: ["SCRIPT": script.path, "SCHEMA": schema, "INPUT": input.path])
        guard result.status == 0 else {
            throw ValidationFailure(description: "python3 with jsonschema (make setup installs it): \(result.stderr)")
        }
        let answer = try JSONValue(parsing: result.stdoutText)
        return (answer.arrayValue ?? []).map { ($0.arrayValue ?? []).compactMap(\.stringValue) }
    }

    struct ValidationFailure: Error, CustomStringConvertible {
        var description: String
    }
}
