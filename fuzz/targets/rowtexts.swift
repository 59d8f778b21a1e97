// libFuzzer target: the convert and filter stages over rows kept as texts (RowTextPlan)
// against the same stages over parsed rows. For any array of rows, both must select the same
// rows, write the same bytes and report the same errors, for every built-in model with a
// field list, a typed `fields:` mapping, and a filter alone.
// @testable: the stages are package-internal; scripts/fuzz.sh builds ScreensPipe with -enable-testing.
@testable import ScreensPipe
import ScreensBus

private let stageSets: [(RowConverter, RowFilter?, Bool)] = {
    let mapping = [
        FieldMapping(name: "id", from: "entryId", type: .int), FieldMapping(name: "name", from: "name"),
        FieldMapping(name: "when", from: "createDate", type: .date, defaultValue: 0),
        FieldMapping(name: "n", from: "visits", type: .number), FieldMapping(name: "b", from: "flag", type: .bool),
        FieldMapping(name: "s", from: "url", type: .string, required: true),
    ]
    let specs: [(ConvertSpec?, String?)] = [
        (ConvertSpec(model: .bookmark), nil),
        (ConvertSpec(model: .bookmark, onInvalid: .skip), #"url contains "a" or entryId > 5"#),
        (ConvertSpec(model: .webContent, locale: "es_ES"), "title exists"),
        (ConvertSpec(model: .asset, onInvalid: .skip), nil),
        (ConvertSpec(fields: mapping), #"id > 0 or name == "n""#),
        (nil, #"name == "n" or entryId >= 7"#),
        // Filters decided on the members' texts where they can be (MemberTextFilter).
        (ConvertSpec(model: .bookmark, onInvalid: .skip), #"name contains "a" and not (url starts-with "h") or entryId in [7, "x", null]"#),
        (nil, #"name < "q" and url != null or description ends-with "" or not (createDate exists) or visits or "ab" starts-with name"#),
    ]
    return specs.map { spec, filter in
        (try! RowConverter(spec: spec), filter.map { try! RowFilter(expression: $0) }, spec?.onInvalid == .skip)
    }
}()

private func describe(_ outcome: RowStages.Outcome, row: Int) -> String {
    switch outcome {
    case .passed(let item): "\(row) selected \(String(decoding: item.jsonBytes, as: UTF8.self))"
    case .filteredOut: "\(row) filtered"
    case .skipped: "\(row) skipped"
    case .failed(let error): "\(row) failed \(error.code) \(error.description)"
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRowTexts(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
    guard let parsed = try? JSONValue.parseArrayKeepingTexts(bytes, skippingElements: true) else { return 0 }
    // Rows without the positions of their members (as a file source keeps them): the reader
    // finds them itself.
    var unfound = JSONElementTexts()
    for row in 0..<parsed.texts.count {
        Array(parsed.texts[row]!).withUnsafeBytes { unfound.append(textOfParsedValue: $0) }
    }
    for (converter, filter, skips) in stageSets {
        guard let plan = RowTextPlan(converter: converter, filter: filter) else { fatalError("no plan") }
        // As a run keeps them: the members the plan reads found while the rows were checked
        // (unless the rows are too small for their positions to be worth keeping).
        guard let found = try? JSONValue.parse(bytes, keepingElementTextsAt: [], skippingElements: true, findingMembers: plan.selection).texts
        else { fatalError("a page that parsed does not parse with its members found: \(bytes)") }
        for texts in [found, unfound] {
            compareTextPathWithTreePath(texts, plan: plan, stages: RowStages(converter: converter, filter: filter, skipsInvalidRows: skips), input: bytes)
        }
    }
    return 0
}

private func compareTextPathWithTreePath(_ texts: JSONElementTexts, plan: RowTextPlan, stages: RowStages, input bytes: [UInt8]) {
    let converter = stages.converter
    // A row no stage changes is written as its text, as the run's sink writes it.
    let tree = (0..<texts.count).map { row in
        let outcome = stages.process(texts.value(at: row), row: row, page: 0)
        if case .passed = outcome, converter.isIdentity { return "\(row) selected \(String(decoding: texts[row]!, as: UTF8.self))" }
        return describe(outcome, row: row)
    }
    var reader = RowTextReader(plan: plan, stages: stages, rows: texts)
    var events = PageEvents(response: ListResponse(pipeline: "p", page: 0, startRow: 0, endRow: texts.count, rowCount: nil, rows: texts.count, origin: .remote))
    var lines: [(Int, String)] = []
    for row in 0..<texts.count {
        switch reader.process(rowAt: row, row: row, page: 0) {
        case .passed: break
        case .filteredOut: lines.append((row, "\(row) filtered"))
        case .skipped: lines.append((row, "\(row) skipped"))
        case .failed(let error):
            reader.flush(into: &events)
            events.appendError(error.event(pipeline: "p"))
            lines.append((row, "\(row) failed \(error.code) \(error.description)"))
        }
    }
    reader.flush(into: &events)
    for index in 0..<events.outcomeCount {
        guard case .selected(let row, let item) = events.outcome(at: index), let text = events.text(ofOutcome: index) else { continue }
        guard (try? JSONValue(parsing: Array(text))) == item else { fatalError("row \(row) reads back as another value: \(bytes)") }
        lines.append((row, "\(row) selected \(String(decoding: text, as: UTF8.self))"))
    }
    let text = lines.sorted { $0.0 < $1.0 }.map(\.1)
    guard text == tree else { fatalError("the text path differs from the tree path:\n\(text)\n\(tree)\ninput: \(bytes)") }
}
