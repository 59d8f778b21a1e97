import ArgumentParser
import ScreensPipe

struct PlanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Show the requests a run would send, with secrets redacted. Sends nothing, writes nothing.",
        discussion: """
            Prints the decoded pipeline and the first pages' requests (method, URL,
            headers, body). Credentials show as <redacted>.

            Example:
              screens-pipe plan pipelines/bookmarks.yaml
            """
    )

    @OptionGroup var pipelineFile: PipelineFileOptions

    @Option(help: "How many pages to show.")
    var pages = 3

    func run() async throws {
        let spec = try pipelineFile.loadSpec()
        if spec.sink.liferay != nil {
            // The writes depend on the rows; their requests are shown by a dry run.
            Terminal.note("screens-pipe: \(pipelineFile.file) writes to a portal: 'screens-pipe write \(pipelineFile.file) --dry-run' shows its requests, credentials redacted")
            if spec.source.isWriteInput { return }
        }
        let plan: RunPlan
        do throws(ScreensPipeError) {
            plan = try RunPlan(spec: spec, pages: pages)
        } catch {
            Terminal.problem(error)
            throw ExitCode(error.exitCode)
        }
        print(plan.text, terminator: "")
    }
}
