// libFuzzer target: the `matches` regular expression engine. The input is a pattern, a NUL
// byte and a text; every pattern compiles or is refused, and every match ends.
@testable import ScreensPipe

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRegex(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: data == nil ? 0 : size)
    let split = input.firstIndex(of: 0) ?? input.endIndex
    let pattern = String(decoding: input[..<split], as: UTF8.self)
    let text = split < input.endIndex ? String(decoding: input[(split + 1)...], as: UTF8.self) : "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"
    guard let regex = try? FilterRegex(pattern) else { return 0 }
    _ = regex.matches(text)
    return 0
}
