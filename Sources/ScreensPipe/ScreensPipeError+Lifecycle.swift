extension ScreensPipeError.Code {
    /// A pipeline was asked to run a second time; a pipeline runs once.
    public static let alreadyRan = ScreensPipeError.Code("already-ran")
}

extension ScreensPipeError {
    /// ``Pipeline/run()`` was called on a pipeline that already ran or is running. Build a
    /// new ``Pipeline`` for the next run (a refresh); the first run's bus is left alone.
    public static func alreadyRan(pipeline: String) -> ScreensPipeError {
        ScreensPipeError(
            .alreadyRan, "pipeline \(pipeline) already ran: a pipeline runs once, build a new one for the next run")
    }
}
