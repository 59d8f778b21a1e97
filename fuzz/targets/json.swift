// libFuzzer target: the JSON parser, then the writer on whatever parses (round trip), then
// the texts kept for rows: each element's kept text (whitespace between tokens left out)
// must read back as the element, hold no line break, and the parse keeping them must agree
// with the plain parse on the value and on whether the input is JSON at all; the compact copy
// of any input (JSONCompaction) reads as the input does.
import ScreensBus

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size)
    let bytes = Array(input)
    let plain = try? JSONValue(parsing: input)
    // The rows of a JSON-WS batch, of a headless page, and a document that is the rows.
    for path: [JSONPathStep] in [[], [.index(0)], [.key("items")]] {
        let kept = try? JSONValue.parse(bytes, keepingElementTextsAt: path)
        guard kept?.value == plain else { fatalError("keeping texts at \(path) changed the parse of \(bytes)") }
        guard let kept, let texts = kept.texts else { continue }
        let elements: [JSONValue]
        switch (path.first, kept.value) {
        case (nil, .array(let array)): elements = array
        case (.index(0)?, .array(let outer)): elements = outer.first?.arrayValue ?? []
        case (.key(let key)?, .object): elements = kept.value[key]?.arrayValue ?? []
        default: fatalError("texts kept at \(path) where there is no array: \(bytes)")
        }
        guard texts.count == elements.count else { fatalError("\(texts.count) texts for \(elements.count) elements: \(bytes)") }
        for position in 0..<texts.count {
            guard let text = texts[position], !text.contains(0x0A), !text.contains(0x0D),
                let again = try? JSONValue(parsing: Array(text)), again == elements[position]
            else { fatalError("the text of element \(position) does not read back as it: \(bytes)") }
        }
        guard (try? JSONValue(parsing: texts.arrayText)) == .array(elements) else { fatalError("arrayText differs: \(bytes)") }
    }
    // Rows only checked, not parsed: the same input accepted, the same error otherwise.
    for path: [JSONPathStep] in [[], [.index(0)], [.key("items")]] {
        let full = Result { () throws(JSONParseError) in try JSONValue.parse(bytes, keepingElementTextsAt: path) }
        let skipped = Result { () throws(JSONParseError) in try JSONValue.parse(bytes, keepingElementTextsAt: path, skippingElements: true) }
        switch (full, skipped) {
        case (.failure(let a), .failure(let b)) where a == b: break
        case (.success(let a), .success(let b)) where a.texts == b.texts:
            if let texts = b.texts {
                let lazy = LazyRowValues(texts: texts)
                guard (0..<texts.count).map({ texts.value(at: $0) }) == lazy.rows else { fatalError("lazy rows differ: \(bytes)") }
            }
        default: fatalError("skipping rows at \(path) disagrees with parsing them: \(bytes)")
        }
    }
    // The compact copy a body formatted for people is read as: when it is made, it must be
    // accepted exactly when the input is, and read as the same value.
    if let copy = input.withMemoryRebound(to: UInt8.self, { JSONCompaction.compacted($0) }) {
        let again = try? JSONValue(parsing: copy)
        guard again == plain else { fatalError("the compact copy reads otherwise than \(bytes): \(copy)") }
    }
    guard let value = plain else { return 0 }
    guard let again = try? JSONValue(parsing: value.jsonBytes), again == value else {
        fatalError("round trip changed the value of \(Array(input))")
    }
    return 0
}
