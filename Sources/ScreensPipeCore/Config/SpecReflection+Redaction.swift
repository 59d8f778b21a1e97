/// URLs written in a pipeline may carry a token in their query or credentials as userinfo:
/// reflection (`dump`, `Mirror`, `String(reflecting:)`) of the parts of a spec that hold one
/// shows the URL as `plan` does, secrets redacted.
extension ServerAddress: CustomReflectable {
    /// `sandbox`, or the URL with userinfo and secret query values redacted.
    public var customMirror: Mirror {
        switch self {
        case .sandbox: Mirror(self, children: [], displayStyle: .enum)
        case .url(let url): Mirror(self, children: ["url": redactedURL(url, markingUserinfo: true)], displayStyle: .enum)
        }
    }
}

extension RESTSourceSpec: CustomReflectable {
    /// The settings with the URL redacted; query values are shown through ``QueryParameter``.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "url": redactedURL(url, markingUserinfo: true), "records": records as Any, "total": total as Any,
                "paginate": paginate, "query": query,
            ],
            displayStyle: .struct)
    }
}

extension HeadlessSourceSpec: CustomReflectable {
    /// The settings with the path redacted; query values are shown through ``QueryParameter``.
    public var customMirror: Mirror {
        Mirror(self, children: ["path": redactedURL(path, markingUserinfo: true), "query": query], displayStyle: .struct)
    }
}

extension ServiceCall: CustomReflectable {
    /// The service and its parameters as `plan` shows them: secret-named members at any
    /// depth read `<redacted>`, and ``secrets`` show only their names.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "service": service, "params": redactedBody(JSONValue.object(params).jsonBytes),
                "secrets": secrets.keys.sorted(),
            ],
            displayStyle: .struct)
    }
}
