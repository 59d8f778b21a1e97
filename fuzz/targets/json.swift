// libFuzzer target: the JSON parser, then the writer on whatever parses (round trip).
import ScreensBus

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size)
    guard let value = try? JSONValue(parsing: input) else { return 0 }
    guard let again = try? JSONValue(parsing: value.jsonBytes), again == value else {
        fatalError("round trip changed the value of \(Array(input))")
    }
    return 0
}
