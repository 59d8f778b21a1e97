@testable import ScreensPipeCore
import ScreensPipe
import ScreensBus
import Testing

/// The pipeline schema is built from the decoder's key tables: every key has a value
/// description, and every key the schema lists is one the decoder accepts.
@Suite struct PipelineSchemaTests {
    @Test func everyKeyOfTheDecodersTablesIsDescribed() {
        #expect(PipelineSchema.undescribedKeys.isEmpty)
    }

    /// The source's listed keys, each set under its own type, decode without an
    /// "unknown key" or "does not apply" error.
    @Test(arguments: SourceRegistry.builtIn.map { $0.typeName })
    func sourceKeysOfEachTypeAreAccepted(typeName: String) throws {
        let type = try #require(SourceRegistry.builtIn.first { $0.typeName == typeName })
        let lines = type.allowedKeys.filter { $0 != "type" }.map { "  \($0): ~" }
        let yaml = "source:\n  type: \(typeName)\n" + lines.joined(separator: "\n") + "\n"
        do {
            _ = try PipelineLoader(environment: [:]).load(yaml: yaml)
        } catch {
            let misplaced = error.errors.filter { $0.message.contains("unknown key") || $0.message.contains("does not apply") }
            #expect(misplaced.isEmpty, "\(misplaced)")
        }
    }

    @Test func theSchemaIsValidJSONWithTheTopLevelKeys() throws {
        let parsed = try JSONValue(parsing: PipelineSchema.text)
        let properties = parsed.objectValue?["properties"]?.objectValue
        #expect(properties?.keys == SpecKeys.topLevel)
        #expect(parsed.objectValue?["additionalProperties"] == false)
        let events = try JSONValue(parsing: EventSchema.text)
        #expect(events.objectValue?["required"] == ["event", "pipeline"])
    }
}
