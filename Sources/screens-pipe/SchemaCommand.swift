import ArgumentParser
import ScreensPipe

struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the JSON Schema of pipeline files (or of event lines).",
        discussion: """
            The schema is built from the decoder's own key tables, so editors (through
            yaml-language-server) complete and check exactly the keys validate accepts.
            docs/schemas/ holds both schemas as this command prints them.

            Examples:
              screens-pipe schema > pipeline.schema.json
              screens-pipe schema --events > events.schema.json
            """
    )

    @Flag(help: "The schema of one line of run --events instead.")
    var events = false

    func run() {
        print(events ? EventSchema.text : PipelineSchema.text, terminator: "")
    }
}
