extension PipelineEvent {
    /// The event as its JSON-lines envelope: `{"event":"response","pipeline":...}`.
    ///
    /// Optional fields that are unknown are left out rather than written as null, so
    /// `jq 'select(.status)'` means what it says.
    public var envelope: JSONValue {
        var object = JSONObject(minimumCapacity: 9)
        switch self {
        case .started(let event):
            object["event"] = "started"
            object["pipeline"] = .string(event.pipeline)
            object["source"] = .string(event.source)
            if let cursor = event.cursor { object["cursor"] = .string(cursor) }
            if let cursorPushed = event.cursorPushed { object["cursorPushed"] = .bool(cursorPushed) }
            if let page = event.resumedFromPage { object["resumedFromPage"] = .int(Int64(page)) }
        case .response(let event):
            object["event"] = "response"
            object["pipeline"] = .string(event.pipeline)
            object["page"] = .int(Int64(event.page))
            object["startRow"] = .int(Int64(event.startRow))
            object["endRow"] = .int(Int64(event.endRow))
            if let rowCount = event.rowCount { object["rowCount"] = .int(Int64(rowCount)) }
            object["rows"] = .int(Int64(event.rows))
            object["origin"] = .string(event.origin.rawValue)
            if let fetchedAt = event.fetchedAt { object["fetchedAt"] = .string(EventTime.text(fetchedAt)) }
            if let action = event.action { object["action"] = .string(action) }
            if let reason = event.actionReason { object["actionReason"] = .string(reason) }
            if let paginator = event.paginator { object["paginator"] = .string(paginator) }
            if let parent = event.parent { object["parent"] = parent }
        case .error(let event):
            object["event"] = "error"
            object["pipeline"] = .string(event.pipeline)
            if let page = event.page { object["page"] = .int(Int64(page)) }
            if let row = event.row { object["row"] = .int(Int64(row)) }
            object["kind"] = .string(event.kind)
            if let status = event.status { object["status"] = .int(Int64(status)) }
            if let exceptionType = event.exceptionType { object["exceptionType"] = .string(exceptionType) }
            if let request = event.request { object["request"] = .string(request) }
            object["message"] = .string(event.message)
            if let parent = event.parent { object["parent"] = parent }
        case .selected(let event):
            object["event"] = "selected"
            object["pipeline"] = .string(event.pipeline)
            object["page"] = .int(Int64(event.page))
            object["row"] = .int(Int64(event.row))
            object["item"] = event.item
            if let parent = event.parent { object["parent"] = parent }
        case .finished(let event):
            object["event"] = "finished"
            object["pipeline"] = .string(event.pipeline)
            object["pages"] = .int(Int64(event.pages))
            object["rows"] = .int(Int64(event.rows))
            object["selected"] = .int(Int64(event.selected))
            object["errors"] = .int(Int64(event.errors))
            if let skipped = event.skipped { object["skipped"] = .int(Int64(skipped)) }
            object["succeeded"] = .bool(event.succeeded)
            if let reason = event.reason { object["reason"] = .string(reason.rawValue) }
            if let signal = event.signal { object["signal"] = .string(signal) }
            if let end = event.end { object["end"] = .string(end.rawValue) }
            if let endWarning = event.endWarning { object["endWarning"] = .string(endWarning) }
            if let cursor = event.cursor { object["cursor"] = .string(cursor) }
            if let prefetch = event.prefetch { object["prefetch"] = .int(Int64(prefetch)) }
        case .custom(let event):
            object["event"] = "custom"
            object["pipeline"] = .string(event.pipeline)
            object["name"] = .string(event.name)
            object["payload"] = event.payload
        }
        return .object(object)
    }
}
