// libFuzzer target: the filter expression parser, then evaluation on a sample row.
// @testable: RowFilter is package-internal; scripts/fuzz.sh builds ScreensPipe with -enable-testing.
@testable import ScreensPipe
import ScreensBus

private let row: JSONValue = [
    "name": "Bookmark 5", "url": "https://www.liferay.com", "visits": 12, "score": 1.5,
    "author": ["email": "a@liferay.com"], "tags": ["tag3", 1, nil], "a": ["b": [["c": true]]],
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFilter(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: data == nil ? 0 : size)
    guard let filter = try? RowFilter(expression: String(decoding: input, as: UTF8.self)) else { return 0 }
    _ = try? filter.matches(row)
    return 0
}
