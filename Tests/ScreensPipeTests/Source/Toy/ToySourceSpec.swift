@testable import ScreensPipeCore
import ScreensPipe
import ScreensBus
import Synchronization

/// `type: toy` — a source type that lives only in the tests, to prove that a type is one
/// folder plus one registry line: its settings, decoding, redacted description, cache
/// identity and fetcher are all in this folder, and ``ToySourceTests`` registers it.
///
/// It serves `rows` generated rows (`{"n": i, "label": "<label> i"}`), with the count on
/// page 0, and counts the pages it was asked for.
struct ToySourceSpec: SourceTypeSettings {
    var rows: Int
    var label: String

    static var typeName: String { "toy" }

    static var ownKeys: [String] { ["rows", "label"] }

    static var isNetworked: Bool { false }

    static func decode(_ section: Section, decoder: SpecDecoder, shared: SourceSpec) -> Self? {
        let rows = section.required("rows", for: "source of type 'toy'").flatMap {
            decoder.context.int($0, key: "rows", atLeast: 0, atMost: 10_000)
        }
        return rows.map { ToySourceSpec(rows: $0, label: section.nonEmptyString("label") ?? "row") }
    }

    var redactedMembers: [(String, YAMLTextWriter.Value)] {
        [("rows", .raw("\(rows)")), ("label", .string(label))]
    }

    var cacheIdentity: JSONValue {
        ["type": .string(Self.typeName), "rows": .int(Int64(rows)), "label": .string(label)]
    }

    func blueprint(_ build: SourceBuild) throws(ScreensPipeError) -> SourceBlueprint {
        .fetcher(ToySource(spec: self))
    }
}

/// The toy type's fetcher: rows made on demand, page by page.
final class ToySource: PageFetcher {
    let spec: ToySourceSpec
    /// Pages fetched by every toy source in the process, by label (tests run in parallel).
    static let fetched = Mutex<[String: Int]>([:])

    init(spec: ToySourceSpec) {
        self.spec = spec
    }

    var identity: String { spec.identity }

    var summary: String { "toy \(spec.rows) rows" }

    func fetch(_ request: PageRequest, provisional: @Sendable (FetchedPage) async -> Void) async throws(ScreensPipeError) -> FetchedPage {
        Self.fetched.withLock { $0[spec.label, default: 0] += 1 }
        let end = min(request.endRow, spec.rows)
        let rows: [JSONValue] = (min(request.startRow, end)..<end).map { ["n": .int(Int64($0)), "label": .string("\(spec.label) \($0)")] }
        return FetchedPage(request: request, rows: rows, rowCount: request.includesRowCount ? spec.rows : nil, origin: .remote)
    }

    func plan(_ request: PageRequest) -> [PlannedRequest] {
        [PlannedRequest(page: request.index, method: "MAKE", url: "toy rows \(request.startRow)..<\(min(request.endRow, spec.rows))")]
    }
}
