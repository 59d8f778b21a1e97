import ScreensBus
internal import Foundation
import Synchronization

/// `type: file`: a local JSON array (or an object holding one at `records`) or a JSON-lines
/// file, served page by page exactly like a remote list, with its row count on page 0.
///
/// The file is read and parsed once, on the first page, so a pipeline can be developed and
/// tested with no network and no portal.
package final class FileSource: PageFetcher {
    /// The file and the records path it reads.
    public let spec: FileSourceSpec
    private let records: FieldPath?
    private let rows = Mutex<[JSONValue]?>(nil)

    /// Creates a source for the file in `spec`; nothing is read until the first page is asked for.
    ///
    /// - Throws: a `.configuration` error when the `records` path does not parse.
    public init(spec: FileSourceSpec) throws(ScreensPipeError) {
        self.spec = spec
        records = try spec.records.map { (text) throws(ScreensPipeError) in try FieldPath(text) }
    }

    /// The path and the records path as a JSON object; the file's contents are not part of it.
    public var identity: String { spec.identity }

    /// `file <path>`.
    public var summary: String { "file \(spec.path)" }

    /// The rows of `request` from the file, with the row count when the request asks for it.
    /// A page past the end is empty; a file that cannot be read or parsed is an error.
    public func fetch(
        _ request: PageRequest, provisional: @Sendable (FetchedPage) async -> Void
    ) async throws(ScreensPipeError) -> FetchedPage {
        let all = try loadRows(page: request.index)
        let start = min(request.startRow, all.count)
        let end = min(max(request.endRow, start), all.count)
        return FetchedPage(
            request: request, rows: Array(all[start..<end]),
            rowCount: request.includesRowCount ? all.count : nil, origin: .file)
    }

    /// One `READ` of the path, naming the rows the page covers.
    public func plan(_ request: PageRequest) -> [PlannedRequest] {
        [PlannedRequest(page: request.index, method: "READ", url: "\(spec.path) rows \(request.startRow)..<\(request.endRow)")]
    }

    private func loadRows(page: Int) throws(ScreensPipeError) -> [JSONValue] {
        if let cached = rows.withLock({ $0 }) { return cached }
        let bytes: [UInt8]
        do {
            bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: spec.path)))
        } catch {
            throw ScreensPipeError.io("cannot read \(spec.path): \(error.localizedDescription)", page: page)
        }
        let parsed = try Self.rows(in: bytes, records: records, path: spec.path, page: page)
        rows.withLock { $0 = parsed }
        return parsed
    }

    /// The rows of a file's bytes: a JSON array, an object with the array at `records`, or
    /// JSON lines (one value per line).
    static func rows(in bytes: [UInt8], records: FieldPath?, path: String, page: Int) throws(ScreensPipeError) -> [JSONValue] {
        let firstByte = bytes.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }
        let document: JSONValue
        do throws(JSONParseError) {
            let isDocument = firstByte == UInt8(ascii: "[") || (firstByte == UInt8(ascii: "{") && records != nil)
            guard isDocument else { return try JSONValue.parseLines(bytes) }
            document = try JSONValue(parsing: bytes)
        } catch {
            throw ScreensPipeError.malformedResponse("\(path): \(error)", page: page)
        }
        let target = records.map { $0.resolve(in: document) } ?? document
        guard case .array(let array)? = target else {
            throw ScreensPipeError(
                .malformedResponse,
                "\(path): expected an array of rows\(records.map { " at '\($0)'" } ?? ""), found \(target?.typeName ?? "nothing")",
                page: page)
        }
        return array
    }
}
