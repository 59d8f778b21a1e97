/// Delegate-style callbacks, as a Liferay Screens list screenlet delegate receives them.
///
/// Every method has a default that does nothing, so a delegate implements only what it
/// needs. Methods are called in event order, one at a time; a slow delegate slows the
/// pipeline down (backpressure) rather than missing events.
public protocol ListDelegate: Sendable {
    /// A page of rows arrived (`onListResponse`).
    func onListResponse(_ response: ListResponse) async
    /// A page, a row or the run failed (`onListError`).
    func onListError(_ error: ListError) async
    /// A row passed the filter (`onSelected`).
    func onSelected(_ row: SelectedRow) async
    /// The run began.
    func onRunStarted(_ started: RunStarted) async
    /// The run ended.
    func onRunFinished(_ finished: RunFinished) async
    /// An embedding service published its own event.
    func onCustomEvent(_ event: CustomEvent) async
    /// A whole page arrived: its response, then its selected rows and errors in row order.
    ///
    /// The default calls ``onListResponse(_:)``, then ``onSelected(_:)`` or
    /// ``onListError(_:)`` for each of its rows; implement it to handle a page at once (a
    /// delegate that only counts rows reads ``PageEvents/selectedCount``).
    func onPage(_ page: PageEvents) async
}

extension ListDelegate {
    /// Ignores the response; implement it to react.
    public func onListResponse(_ response: ListResponse) async {}
    /// Ignores the error; implement it to react.
    public func onListError(_ error: ListError) async {}
    /// Ignores the selected row; implement it to react.
    public func onSelected(_ row: SelectedRow) async {}
    /// Ignores the start; implement it to react.
    public func onRunStarted(_ started: RunStarted) async {}
    /// Ignores the end of the run; implement it to react.
    public func onRunFinished(_ finished: RunFinished) async {}
    /// Ignores the custom event; implement it to react.
    public func onCustomEvent(_ event: CustomEvent) async {}

    /// Spells the page out as its events, one call each.
    public func onPage(_ page: PageEvents) async {
        for event in page.events { await dispatch(event) }
    }

    /// Calls the method that matches `event`.
    public func dispatch(_ event: PipelineEvent) async {
        switch event {
        case .started(let started): await onRunStarted(started)
        case .response(let response): await onListResponse(response)
        case .error(let error): await onListError(error)
        case .selected(let row): await onSelected(row)
        case .finished(let finished): await onRunFinished(finished)
        case .custom(let custom): await onCustomEvent(custom)
        }
    }
}

extension EventBus {
    /// Subscribes `delegate` now and feeds it every event until the bus finishes.
    ///
    /// Await the returned task to know the delegate has seen the last event.
    @discardableResult
    public func attach(_ delegate: some ListDelegate) -> Task<Void, Never> {
        let messages = subscribe().messages
        return Task {
            for await message in messages {
                switch message {
                case .event(let event): await delegate.dispatch(event)
                case .page(let page): await delegate.onPage(page)
                }
            }
        }
    }
}
