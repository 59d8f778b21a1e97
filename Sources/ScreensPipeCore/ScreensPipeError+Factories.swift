extension ScreensPipeError.Code {
    /// A pipeline was asked to run a second time; a pipeline runs once.
    public static let alreadyRan = ScreensPipeError.Code("already-ran")
}

/// Named factories, one per code, in the style of swift-service-lifecycle's
/// `ServiceGroupError.alreadyRunning()`: a call site says what went wrong, and the code
/// and the event's `kind` follow from the name.
extension ScreensPipeError {
    /// ``Pipeline/run()`` was called on a pipeline that already ran or is running. Build a
    /// new ``Pipeline`` for the next run (a refresh); the first run's bus is left alone.
    public static func alreadyRan(pipeline: String) -> ScreensPipeError {
        ScreensPipeError(
            .alreadyRan, "pipeline \(pipeline) already ran: a pipeline runs once, build a new one for the next run")
    }

    /// The pipeline file, the command line or a spec built in code is wrong.
    public static func configuration(_ message: String, at location: SourceLocation? = nil) -> ScreensPipeError {
        ScreensPipeError(.configuration, message, location: location)
    }

    /// The server could not be reached: refused, DNS, timeout, reset, truncated body.
    public static func connectivity(_ message: String, page: Int? = nil, request: String? = nil) -> ScreensPipeError {
        ScreensPipeError(.connectivity, message, page: page, request: request)
    }

    /// The server answered with an HTTP error status.
    public static func http(_ message: String, page: Int? = nil, request: String? = nil, status: Int? = nil) -> ScreensPipeError {
        ScreensPipeError(.http, message, page: page, request: request, status: status)
    }

    /// Bad credentials: a 401, or a redirect to a login page.
    public static func authentication(_ message: String, page: Int? = nil, request: String? = nil, status: Int? = nil) -> ScreensPipeError {
        ScreensPipeError(.authentication, message, page: page, request: request, status: status)
    }

    /// The response was not what the wire format promises.
    public static func malformedResponse(_ message: String, page: Int? = nil, request: String? = nil, status: Int? = nil) -> ScreensPipeError {
        ScreensPipeError(.malformedResponse, message, page: page, request: request, status: status)
    }

    /// Pagination went wrong on `page`: too many pages, a repeated page, a missing marker.
    public static func pagination(_ message: String, page: Int? = nil) -> ScreensPipeError {
        ScreensPipeError(.pagination, message, page: page)
    }

    /// The local cache could not be read or written, or a page is missing from it.
    public static func cache(_ message: String, page: Int? = nil) -> ScreensPipeError {
        ScreensPipeError(.cache, message, page: page)
    }

    /// A local file could not be read.
    public static func io(_ message: String, page: Int? = nil) -> ScreensPipeError {
        ScreensPipeError(.io, message, page: page)
    }

    /// The run was cancelled while `page` was loading.
    public static func cancelled(_ message: String, page: Int? = nil) -> ScreensPipeError {
        ScreensPipeError(.cancelled, message, page: page)
    }

    /// A row could not be converted into its model (the row's error, not the run's).
    public static func conversion(_ message: String) -> ScreensPipeError {
        ScreensPipeError(.conversion, message)
    }

    /// The sink could not write what the run delivered (disk full, a closed pipe's peer).
    public static func sink(_ message: String) -> ScreensPipeError {
        ScreensPipeError(.sink, message)
    }
}

extension ScreensPipeError {
    /// The pipeline file named `label` could not be read at all (code ``Code/configuration``).
    public static func unreadable(_ label: String, reason: String) -> ScreensPipeError {
        .configuration("cannot read \(label): \(reason)")
    }
}
