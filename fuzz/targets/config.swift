// libFuzzer target: the numbers of a pipeline file (durations, sizes, counts) and `--set`
// overrides, through the whole loader. The input's first line is an override
// (`key.path=value`), the rest a pipeline file.
@testable import ScreensPipe

private let loader = PipelineLoader(environment: ["X": "1"])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: data == nil ? 0 : size), as: UTF8.self)
    let newline = text.firstIndex(of: "\n") ?? text.endIndex
    let override = String(text[..<newline])
    let yaml = newline < text.endIndex ? String(text[text.index(after: newline)...]) : ""
    _ = ConfigUnits.duration(override)
    _ = ConfigUnits.size(override)
    _ = try? loader.load(yaml: yaml, file: "fuzz.yaml", overrides: override.contains("=") ? [override] : [])
    return 0
}
