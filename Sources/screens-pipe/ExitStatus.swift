import ScreensPipe

// The process exit statuses (docs/architecture.md, "Events and exit codes"). They are the
// command's business alone: the library throws errors and returns summaries, and only
// this file turns them into numbers.

extension ScreensPipeError {
    /// The process exit status this error leads to: 2 a configuration error, 75 a lock
    /// held by another run, 1 anything else.
    var exitCode: Int32 {
        switch code {
        case .configuration: 2
        // sysexits.h's EX_TEMPFAIL: nothing is wrong, another run is busy; cron and shell
        // loops can tell "try later" from a failure.
        case .locked: 75
        default: 1
        }
    }
}

extension RunSummary {
    /// The process exit status of a run that returned its summary: 0 all rows delivered (or
    /// the reader left), 1 not. An interrupted run exits with its signal's status
    /// (`StopSignal.exitCode`, 128 + its number) before this is asked.
    var exitCode: Int32 { endedWithoutFailure ? 0 : 1 }
}
