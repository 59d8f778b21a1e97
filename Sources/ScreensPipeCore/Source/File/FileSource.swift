import ScreensBus
import Synchronization

/// `type: file`: a local JSON array (or an object holding one at `records`) or a JSON-lines
/// file, served page by page exactly like a remote list, with its row count on page 0.
///
/// The file is streamed, never loaded whole: the first page scans it once to count the
/// rows and note where every 64th one starts (``FileRowIndex``), and each page then seeks
/// near its first row and parses just its own rows. Memory stays the same for a file of a
/// megabyte or of many gigabytes, and a pipeline can still be developed and tested with no
/// network and no portal.
package final class FileSource: PageFetcher {
    /// The file and the records path it reads.
    package let spec: FileSourceSpec
    private let records: FieldPath?
    private let index = Mutex<FileRowIndex?>(nil)
    /// Whether rows are kept as their texts, checked but not parsed
    /// (``RowReadPlan``).
    let keepsRowsAsTexts: Bool

    /// Creates a source for the file in `spec`; nothing is read until the first page is asked for.
    ///
    /// - Throws: a `.configuration` error when the `records` path does not parse.
    package convenience init(spec: FileSourceSpec) throws(ScreensPipeError) {
        try self.init(spec: spec, keepsRowsAsTexts: false)
    }

    /// A source whose rows are kept as texts, checked but not parsed, when `keepsRowsAsTexts`.
    init(spec: FileSourceSpec, keepsRowsAsTexts: Bool) throws(ScreensPipeError) {
        self.spec = spec
        self.keepsRowsAsTexts = keepsRowsAsTexts
        records = try spec.records.map { (text) throws(ScreensPipeError) in try FieldPath(text) }
    }

    /// The path and the records path as a JSON object; the file's contents are not part of it.
    package var identity: String { spec.identity }

    /// `file <path>`.
    package var summary: String { "file \(spec.path)" }

    /// The rows of `request` from the file, with the row count when the request asks for it.
    /// A page past the end is empty; a file that cannot be read or parsed is an error.
    package func fetch(
        _ request: PageRequest, provisional: @Sendable (FetchedPage) async -> Void
    ) async throws(ScreensPipeError) -> FetchedPage {
        let index = try rowIndex(page: request.index)
        let start = min(request.startRow, index.rowCount)
        let end = min(max(request.endRow, start), index.rowCount)
        let rows: [JSONValue]
        let texts: JSONElementTexts
        do throws(FileScanError) {
            (rows, texts) = try index.rows(start..<end, path: spec.path, checkingOnly: keepsRowsAsTexts)
        } catch {
            throw failure(error, page: request.index)
        }
        let rowCount = request.includesRowCount ? index.rowCount : nil
        if keepsRowsAsTexts {
            // The rows were only checked: their texts are the rows.
            guard texts.count == end - start else {
                throw ScreensPipeError.malformedResponse("\(spec.path): \(texts.count) rows read where \(end - start) were expected", page: request.index)
            }
            return FetchedPage(request: request, rowTexts: texts, rowCount: rowCount, origin: .file)
        }
        var page = FetchedPage(request: request, rows: rows, rowCount: rowCount, origin: .file)
        if texts.count == rows.count { page.rowTexts = texts }
        return page
    }

    /// One `READ` of the path, naming the rows the page covers.
    package func plan(_ request: PageRequest) -> [PlannedRequest] {
        [PlannedRequest(page: request.index, method: "READ", url: "\(spec.path) rows \(request.startRow)..<\(request.endRow)")]
    }

    /// The file's row index, built by the first page that needs it.
    private func rowIndex(page: Int) throws(ScreensPipeError) -> FileRowIndex {
        if let built = index.withLock({ $0 }) { return built }
        let scanned: Result<FileRowIndex, FileRowIndex.NotAnArray>
        do throws(FileScanError) {
            scanned = try FileRowIndex.build(path: spec.path, records: records)
        } catch {
            throw failure(error, page: page)
        }
        switch scanned {
        case .success(let built):
            index.withLock { $0 = built }
            return built
        case .failure(let notAnArray):
            throw ScreensPipeError(
                .malformedResponse,
                "\(spec.path): expected an array of rows\(records.map { " at '\($0)'" } ?? ""), found \(notAnArray.typeName ?? "nothing")",
                page: page)
        }
    }

    private func failure(_ error: FileScanError, page: Int) -> ScreensPipeError {
        switch error.kind {
        case .io: .io("cannot read \(spec.path): \(error.message)", page: page)
        case .malformed: .malformedResponse("\(spec.path): \(error.message)", page: page)
        }
    }

    /// The rows of a file's bytes already in memory (a pipeline test's recording): a JSON
    /// array, an object with the array at `records`, or JSON lines (one value per line).
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
