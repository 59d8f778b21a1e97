public import struct Foundation.Date
public import ScreensBus

extension Pipeline {
    /// The run's selected rows decoded as `Row`, in list order, as an async sequence that
    /// runs the pipeline: iterating it starts ``run()`` (so do not call `run()` as well), and
    /// the sequence ends when the run does.
    ///
    /// ```swift
    /// struct Bookmark: Decodable, Sendable { let entryId: Int64; let name: String; let url: String? }
    /// for try await bookmark in pipeline.rows(as: Bookmark.self) {
    ///     print(bookmark.entryId, bookmark.name)
    /// }
    /// ```
    ///
    /// The values are read from each row as it is (``JSONValueDecoder``: no JSON text written
    /// and read again, no number rounded). Throws, after the rows before it:
    ///
    /// - for a row that does not decode: a ``ScreensPipeError/Code/conversion`` error naming
    ///   the row, its page and the field (`row 3 of page 0: entryId: expected an integer,
    ///   found a string`); the run is stopped first;
    /// - for a run that failed or was cancelled: what ``run()`` throws (a 401 as an `auth`
    ///   error naming the page and the redacted request, a cancelled task as `cancelled`),
    ///   with the run's ``ScreensPipeError/summary``.
    ///
    /// Cancelling the task that iterates stops the run; leaving the loop early (`break`)
    /// stops it too. Other subscribers and the spec's sink see the whole run as usual.
    public func rows<Row: Decodable & Sendable>(as type: Row.Type, decoder: JSONValueDecoder = .rows()) -> TypedRows<Row> {
        TypedRows(pipeline: self, decoder: decoder)
    }

    /// Attaches a callback that receives every selected row decoded as `Row`, in list order,
    /// or the error of a row that does not decode (naming its row, page and field); the run
    /// goes on either way. Attach before ``run()``; the returned task ends after the last row.
    ///
    /// ```swift
    /// let delivered = pipeline.attach(rowsAs: Bookmark.self) { row in
    ///     switch row {
    ///     case .success(let bookmark): await index.add(bookmark)
    ///     case .failure(let error): logger.warning("\(error)")
    ///     }
    /// }
    /// let summary = try await pipeline.run()
    /// await delivered.value
    /// ```
    @discardableResult
    public func attach<Row: Decodable & Sendable>(
        rowsAs type: Row.Type, decoder: JSONValueDecoder = .rows(),
        _ onRow: @escaping @Sendable (Result<Row, ScreensPipeError>) async -> Void
    ) -> Task<Void, Never> {
        bus.attach(TypedRowDelegate<Row>(decoder: decoder, onRow: onRow))
    }
}

/// A pipeline's selected rows as `Row` values (``Pipeline/rows(as:decoder:)``).
public struct TypedRows<Row: Decodable & Sendable>: AsyncSequence, Sendable {
    /// One decoded row.
    public typealias Element = Row
    /// A failed run, a cancelled one, or a row that does not decode.
    public typealias Failure = ScreensPipeError

    let pipeline: Pipeline
    let decoder: JSONValueDecoder

    /// Subscribes and starts the run. A pipeline runs once: a second iterator's run throws
    /// ``ScreensPipeError/alreadyRan(pipeline:)``.
    public func makeAsyncIterator() -> Iterator {
        Iterator(pipeline: pipeline, decoder: decoder)
    }

    /// Takes the rows one at a time.
    public struct Iterator: AsyncIteratorProtocol {
        private var events: EventSubscription.Iterator
        private let run: RunningTask
        private let decoder: JSONValueDecoder
        private var ended = false

        init(pipeline: Pipeline, decoder: JSONValueDecoder) {
            // Subscribed before the run starts: no row is missed.
            events = pipeline.subscribe().makeAsyncIterator()
            run = RunningTask(pipeline)
            self.decoder = decoder
        }

        /// The next row; nil once the run delivered its list.
        public mutating func next() async throws(ScreensPipeError) -> Row? {
            guard !ended else { return nil }
            while !Task.isCancelled, let event = await events.next() {
                guard case .selected(let selected) = event else { continue }
                do {
                    return try decoder.decode(Row.self, from: selected.item)
                } catch {
                    ended = true
                    var failure = ScreensPipeError.rowDecoding(error, as: Row.self, row: selected.row, page: selected.page)
                    run.cancel()
                    failure.finishedRun = await run.outcome().summary.map(FinishedRun.init)
                    throw failure
                }
            }
            ended = true
            // The subscription ends when the run finished the bus, or when this task was
            // cancelled: then the run is stopped, and the rows this task did not take make
            // the sequence end as cancelled even if the run itself got to the end.
            guard Task.isCancelled else {
                switch await run.outcome() {
                case .success: return nil
                case .failure(let error): throw error
                }
            }
            run.cancel()
            let outcome = await run.outcome()
            // The run's own error (its cancellation, or a failure that came first) says more.
            if case .failure(let error) = outcome { throw error }
            var cancelled = ScreensPipeError.cancelled("the task reading the rows was cancelled")
            cancelled.finishedRun = outcome.summary.map(FinishedRun.init)
            throw cancelled
        }
    }
}

/// The run a ``TypedRows`` iterator started; cancelled when the iterator is released, so a
/// loop left early does not leave a run going.
final class RunningTask: Sendable {
    private let task: Task<Result<RunSummary, ScreensPipeError>, Never>

    init(_ pipeline: Pipeline) {
        task = Task {
            do throws(ScreensPipeError) { return .success(try await pipeline.run()) } catch { return .failure(error) }
        }
    }

    deinit { task.cancel() }

    func cancel() { task.cancel() }

    func outcome() async -> Result<RunSummary, ScreensPipeError> { await task.value }
}

extension Result<RunSummary, ScreensPipeError> {
    /// The run's summary, whether it succeeded or threw one.
    var summary: RunSummary? {
        switch self {
        case .success(let summary): summary
        case .failure(let error): error.summary
        }
    }
}

/// Decodes each selected row for ``Pipeline/attach(rowsAs:decoder:_:)``.
struct TypedRowDelegate<Row: Decodable & Sendable>: ListDelegate {
    let decoder: JSONValueDecoder
    let onRow: @Sendable (Result<Row, ScreensPipeError>) async -> Void

    func onSelected(_ row: SelectedRow) async {
        do {
            await onRow(.success(try decoder.decode(Row.self, from: row.item)))
        } catch {
            await onRow(.failure(.rowDecoding(error, as: Row.self, row: row.row, page: row.page)))
        }
    }
}

extension ScreensPipeError {
    /// A selected row that does not decode as `type`: code `convert`, with its row, page
    /// and the field the decoder stopped at.
    static func rowDecoding(_ error: any Error, as type: Any.Type, row: Int, page: Int) -> ScreensPipeError {
        let reason = (error as? DecodingError)?.pathAndReason ?? "\(error)"
        return ScreensPipeError(.conversion, "the row does not decode as \(type): \(reason)", page: page, row: row)
    }
}

extension JSONValueDecoder {
    /// How a row's dates become Foundation `Date`s.
    public enum DateDecoding: Sendable {
        /// An ISO 8601 string (`2026-11-21T09:15:00Z`, `2026-11-21`; no zone reads as UTC),
        /// as the built-in models write dates, to the millisecond at most (a finer fraction
        /// is refused, not rounded; zeros past the millisecond are not finer). The default.
        case iso8601
        /// An integer of milliseconds since 1970, as Liferay's JSON-WS sends them (a number
        /// written with a zero fraction, `1700000000000.0`, too; any other fraction is refused).
        case epochMilliseconds
    }

    /// The decoder ``Pipeline/rows(as:decoder:)`` uses: every rule of ``JSONValueDecoder``,
    /// and `Date` fields read as `dates` says. Anything else in a `Date` field is an error
    /// naming the field.
    public static func rows(dates: DateDecoding = .iso8601) -> JSONValueDecoder {
        var decoder = JSONValueDecoder()
        switch dates {
        case .iso8601:
            decoder.addDecoder(for: Date.self, expecting: "an ISO 8601 date string, to the millisecond at most") { value in
                guard case .string(let text) = value, let milliseconds = ISODate.parse(text, refusingFinerThanMilliseconds: true) else { return nil }
                return Date(epochMilliseconds: milliseconds)
            }
        case .epochMilliseconds:
            decoder.addDecoder(for: Date.self, expecting: "an integer of milliseconds since 1970") { value in
                // Whatever a converted list's date field takes as milliseconds (`1700000000000.0` too).
                guard let milliseconds = value.int64Value else { return nil }
                return Date(epochMilliseconds: milliseconds)
            }
        }
        return decoder
    }
}

extension Date {
    fileprivate init(epochMilliseconds: Int64) {
        // Whole seconds and the milliseconds apart: the sum is the nearest Double either way.
        self.init(timeIntervalSince1970: Double(epochMilliseconds / 1000) + Double(epochMilliseconds % 1000) / 1000)
    }
}
