// libFuzzer target: the localized XML reader (Liferay's localized fields and web content
// documents), directly and through localized value resolution.
@testable import ScreensPipe
import ScreensBus

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXML(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: data == nil ? 0 : size), as: UTF8.self)
    _ = try? XMLReader.parse(text)
    _ = LocalizedValue.resolve(.string(text), locale: "es_ES")
    _ = LocalizedValue.resolve(.string("<root default-locale=\"en_US\">" + text + "</root>"), locale: nil)
    return 0
}
