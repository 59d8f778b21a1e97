import ScreensBus
@testable import ScreensPipeCore
import Testing

/// The edit commands of a session (`add`, `update`, `delete`) and the one rule that moves a
/// list's rows across its pages when a row is added, changed or removed.
@Suite("session: edit commands and list edits")
struct SessionEditRequestTests {
    private func read(_ line: String) -> SessionRequest {
        SessionRequest(line: Array(line.utf8))
    }

    private func reason(_ line: String) -> String? {
        if case .unreadable(let reason) = read(line).operation { return reason }
        return nil
    }

    @Test("add, update and delete are read with their row or key and id")
    func editCommands() {
        #expect(read(#"{"op":"add","row":{"url":"https://a.example"},"id":"a"}"#) == SessionRequest(.edit(.add(row: ["url": "https://a.example"])), id: "a"))
        #expect(read(#"{"op":"update","row":{"url":"https://a.example","name":"A"}}"#) == SessionRequest(.edit(.update(row: ["url": "https://a.example", "name": "A"]))))
        #expect(read(#"{"op":"delete","key":{"url":"https://a.example"},"id":3}"#) == SessionRequest(.edit(.delete(key: ["url": "https://a.example"])), id: 3))
    }

    @Test("a missing, wrong-typed or empty row or key is unreadable, with the reason and the id")
    func hostileEdits() throws {
        #expect(try #require(reason(#"{"op":"add"}"#)).contains("needs \"row\""))
        #expect(try #require(reason(#"{"op":"add","row":"https://a.example"}"#)).contains("\"row\" must be an object, found string"))
        #expect(try #require(reason(#"{"op":"update","row":[1,2]}"#)).contains("found array"))
        #expect(try #require(reason(#"{"op":"add","row":{}}"#)).contains("is empty"))
        #expect(try #require(reason(#"{"op":"delete"}"#)).contains("needs \"key\""))
        #expect(try #require(reason(#"{"op":"delete","key":42}"#)).contains("found number"))
        #expect(try #require(reason(#"{"op":"delete","key":{}}"#)).contains("from 1 to 16"))
        #expect(try #require(reason(#"{"op":"delete","key":{"url":{"deep":1}}}"#)).contains("string or a number"))
        #expect(try #require(reason(#"{"op":"delete","row":{"url":"x"}}"#)).contains("needs \"key\""))
        #expect(try #require(reason(#"{"op":"add","row":{"url":"x"},"key":{"url":"x"}}"#)).contains("unknown key 'key'"))
        #expect(read(#"{"op":"add","row":5,"id":"bad"}"#).id == "bad")
        let manyFields = (0..<17).map { "\"f\($0)\":1" }.joined(separator: ",")
        #expect(try #require(reason(#"{"op":"delete","key":{\#(manyFields)}}"#)).contains("from 1 to 16"))
        let huge = String(repeating: "x", count: SessionRequest.maximumLineLength)
        #expect(try #require(reason(#"{"op":"add","row":{"name":"\#(huge)"}}"#)).contains("longer than the limit"))
    }

    // MARK: - ListEdit

    /// Pages of `rows` numbered rows (`{"n":i}`) under `first`/`size` pagination, with a count.
    private func pages(_ rows: Int, first: Int = 2, size: Int = 2, loaded: Int? = nil) -> (PaginationSpec, [FetchedPage]) {
        var pagination = PaginationSpec()
        pagination.firstPageSize = first
        pagination.pageSize = size
        let all: [JSONValue] = (0..<rows).map { ["n": .int(Int64($0))] }
        var pages: [FetchedPage] = []
        var index = 0
        while true {
            let request = PageRequest(index: index, pagination: pagination)
            if index > 0 && request.startRow >= rows { break }
            pages.append(FetchedPage(serving: all, for: request))
            index += 1
        }
        return (pagination, Array(pages.prefix(loaded ?? pages.count)))
    }

    private func numbers(_ pages: [FetchedPage]) -> [[Int64]] {
        pages.map { $0.rows.compactMap { $0["n"]?.int64Value } }
    }

    @Test("an append to a whole list lands on its last page, or opens a new one, and counts one more")
    func appendToWholeList() {
        let (pagination, list) = pages(5)
        let edited = ListEdit(change: .append(["n": 9]), pagination: pagination).apply(to: list, complete: true)
        #expect(numbers(edited) == [[0, 1], [2, 3], [4, 9]])
        #expect(edited[0].rowCount == 6)
        let again = ListEdit(change: .append(["n": 10]), pagination: pagination).apply(to: edited, complete: true)
        #expect(numbers(again) == [[0, 1], [2, 3], [4, 9], [10]])
        #expect(again[3].request.startRow == 6 && again[3].request.endRow == 8)
    }

    @Test("an append to a list whose end is not at hand changes only the count")
    func appendToPartialList() {
        let (pagination, list) = pages(7, loaded: 2)
        let edited = ListEdit(change: .append(["n": 9]), pagination: pagination).apply(to: list, complete: false)
        #expect(numbers(edited) == [[0, 1], [2, 3]])
        #expect(edited[0].rowCount == 8)
    }

    @Test("a removal moves the later rows back a place; a page left one row short is dropped")
    func removal() {
        let (pagination, list) = pages(5)
        let whole = ListEdit(change: .remove(at: 1), pagination: pagination).apply(to: list, complete: true)
        #expect(numbers(whole) == [[0, 2], [3, 4]])
        #expect(whole[0].rowCount == 4)
        let (_, partial) = pages(7, loaded: 2)
        let cut = ListEdit(change: .remove(at: 0), pagination: pagination).apply(to: partial, complete: false)
        #expect(numbers(cut) == [[1, 2]], "page 1 would lack row 4, on page 2, not at hand")
        #expect(cut[0].rowCount == 6)
    }

    @Test("a replacement changes one row in place and nothing else")
    func replacement() {
        let (pagination, list) = pages(5)
        let edited = ListEdit(change: .replace(at: 3, with: ["n": 33]), pagination: pagination).apply(to: list, complete: true)
        #expect(numbers(edited) == [[0, 1], [2, 33], [4]])
        #expect(edited[0].rowCount == 5)
        #expect(ListEdit(change: .replace(at: 9, with: ["n": 1]), pagination: pagination).apply(to: list, complete: true) == list)
    }
}
