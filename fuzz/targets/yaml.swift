// libFuzzer target: the YAML pipeline loader (YAML, interpolation, decoding, validation).
import ScreensPipe

private let loader = PipelineLoader(environment: ["X": "1"])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzYAML(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: data == nil ? 0 : size)
    _ = try? loader.load(yaml: String(decoding: input, as: UTF8.self), file: "fuzz.yaml")
    return 0
}
