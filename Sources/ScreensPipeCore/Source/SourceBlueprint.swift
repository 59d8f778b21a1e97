/// A pipeline's source before anything is opened: a fetcher that needs no HTTP client (a
/// local file, a custom source built in code), or an HTTP wire format with the settings
/// (headers, credentials, limits) every request gets.
///
/// `plan` asks it for the requests of the first pages; a run turns it into a fetcher with an
/// HTTP client and, maybe, a cache around it. Building one creates no file, no database, no
/// client and no thread.
enum SourceBlueprint: Sendable {
    /// `type: file` (a ``FileSource`` reads nothing until its first page) or a custom source.
    case fetcher(any PageFetcher)
    /// An HTTP wire format (JSON-WS, headless, REST) and the settings from `source:`.
    case http(any WireFormat, HTTPSourceSettings)

    /// Whether pages can be asked for by index, or only one after another.
    var chaining: PageChaining {
        switch self {
        case .fetcher(let fetcher): fetcher.chaining
        case .http(let wire, _): wire.chaining
        }
    }

    /// The requests a run would send for `page`, secrets redacted; nothing is sent.
    func plan(_ page: PageRequest) -> [PlannedRequest] {
        switch self {
        case .fetcher(let fetcher): fetcher.plan(page)
        case .http(let wire, let settings): wire.plannedRequests(for: page, settings: settings)
        }
    }
}
