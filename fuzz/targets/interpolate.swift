// libFuzzer target: `${NAME}`, `${NAME:-default}` and `${NAME:?message}` expansion.
@testable import ScreensPipe

private let interpolator = Interpolator(environment: ["A": "a", "EMPTY": "", "B": "${A}"])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzInterpolate(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: data == nil ? 0 : size), as: UTF8.self)
    _ = try? interpolator.expand(text)
    return 0
}
