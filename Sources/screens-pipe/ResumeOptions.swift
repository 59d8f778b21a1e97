import ArgumentParser

/// `run --resume`: continue a failed or interrupted run from its last checkpoint.
struct ResumeOptions: ParsableArguments {
    @Flag(
        help: ArgumentHelp(
            "Continue the last failed or interrupted run of this pipeline with the same -o FILE: append to FILE.partial from the first page it lacks.",
            discussion: "Refused (exit 2) when there is nothing to resume, FILE.partial is missing or shorter than the checkpoint, the pipeline changed, the output is standard output, or with --full-refresh."))
    var resume = false
}
