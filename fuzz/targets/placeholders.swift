// libFuzzer target: a hostile parent value interpolated into a child source's header, path,
// query and body (RowPlaceholders through ValueDestination), then decoded as the fan-out
// decodes it. Traps when a value could smuggle anything: a control character in a header,
// a path segment that is not exactly one percent-encoded segment of the value, a query value
// that is not the value as written (expanded again, or cut), or a decoded source that lost
// or changed a value.
import ScreensBus
@testable import ScreensPipe

private let template: YAMLMapping = {
    let yaml = """
        type: rest
        server: http://127.0.0.1:1
        url: /sites/${site.id}/items
        records: items
        query: { q: "${site.id}", label: "x ${site.id} y" }
        headers: { X-Site: "${site.id}" }
        """
    guard case .mapping(let mapping) = try! YAMLReader(file: "<fuzz>").read(Array(yaml.utf8)) else { fatalError("template") }
    return mapping
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlaceholders(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let value = String(decoding: UnsafeBufferPointer(start: data, count: data == nil ? 0 : size), as: UTF8.self)
    let lineage = Lineage().adding(Lineage.Frame(name: "site", row: 0, value: ["id": .string(value)], shownFields: ["id"]))
    guard let resolved = try? RowPlaceholders.resolve(template, lineage: lineage) else {
        // Refused: only for a reason a destination or the placeholder rules give.
        let refusable = ValueDestination.firstControlCharacter(in: value) != nil || value.isEmpty || value == "." || value == ".."
            || value.utf8.count > RowPlaceholders.maximumValueBytes || value.contains(IncrementalPushDown.placeholder)
        if !refusable { fatalError("a harmless value was refused: \(value.debugDescription)") }
        return 0
    }
    if ValueDestination.firstControlCharacter(in: value) != nil { fatalError("a control character passed: \(value.debugDescription)") }
    let context = DecodingContext()
    let decoder = SpecDecoder(context: context, defaultName: "fuzz", file: nil, placeholdersResolved: true)
    guard let source = Section(.mapping(resolved), name: "source", context: context).flatMap({ decoder.decodeSource($0) }), context.errors.isEmpty,
        let rest = source.type.settings(as: RESTSourceSpec.self)
    else {
        fatalError("a resolved source did not decode: \(value.debugDescription): \(context.errors.map(\.message))")
    }
    // The path: the template's text around exactly one segment that decodes to the value.
    guard rest.url.hasPrefix("/sites/"), rest.url.hasSuffix("/items") else { fatalError("the path moved: \(rest.url)") }
    let segment = rest.url.dropFirst("/sites/".count).dropLast("/items".count)
    if segment.isEmpty || segment == "." || segment == ".." || segment.contains(where: { $0 == "/" || $0 == "?" || $0 == "#" || $0 == "\\" }) {
        fatalError("the segment is not one segment: \(segment)")
    }
    if percentDecoded(String(segment)) != Array(value.utf8) { fatalError("the segment is not the value: \(segment)") }
    // The query and the header: the value as written, never expanded again.
    let query = Dictionary(rest.query.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
    if query["q"] != value || query["label"] != "x \(value) y" { fatalError("the query changed the value: \(query)") }
    guard source.headers.count == 1, source.headers[0].value.revealed == value else { fatalError("the header changed the value") }
    return 0
}

private func percentDecoded(_ text: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var iterator = Array(text.utf8).makeIterator()
    while let byte = iterator.next() {
        guard byte == UInt8(ascii: "%") else {
            bytes.append(byte)
            continue
        }
        guard let high = iterator.next(), let low = iterator.next(), let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else {
            fatalError("a bad escape in \(text)")
        }
        bytes.append(value)
    }
    return bytes
}
