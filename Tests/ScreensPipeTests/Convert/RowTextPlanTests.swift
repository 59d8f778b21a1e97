import ScreensBus
import TestSupport
import Testing

@testable import ScreensPipeCore
import ScreensPipe

/// The convert and filter stages over rows kept as texts must do exactly what the tree path
/// does: the same selected rows with the same bytes and values, the same errors, the same
/// skipped rows. Each test runs both on the same page and compares them.
@Suite struct RowTextPlanTests {
    /// One outcome, as comparable text: what a sink would write, or the error it would report.
    private static func describe(_ outcome: RowStages.Outcome, row: Int) -> String {
        switch outcome {
        case .passed(let item): "\(row) selected \(String(decoding: item.jsonBytes, as: UTF8.self))"
        case .filteredOut: "\(row) filtered"
        case .skipped: "\(row) skipped"
        case .failed(let error): "\(row) failed \(error.code) \(error.description)"
        }
    }

    /// The tree path's outcomes for `rows` (one JSON text each). A row no stage changes is
    /// written as its text, as the run's sink writes it.
    private static func treeOutcomes(_ texts: JSONElementTexts, stages: RowStages) -> [String] {
        (0..<texts.count).map { row in
            let outcome = stages.process(texts.value(at: row), row: row, page: 4)
            if case .passed = outcome, stages.converter.isIdentity, let text = texts[row] {
                return "\(row) selected \(String(decoding: text, as: UTF8.self))"
            }
            return describe(outcome, row: row)
        }
    }

    /// The text path's outcomes, in the same form; each selected row's value (parsed from
    /// its text, as a subscriber would read it) must be the tree path's item.
    private static func textOutcomes(_ texts: JSONElementTexts, plan: RowTextPlan, stages: RowStages) -> [String] {
        var reader = RowTextReader(plan: plan, stages: stages, rows: texts)
        var events = PageEvents(response: ListResponse(pipeline: "p", page: 4, startRow: 0, endRow: texts.count, rowCount: nil, rows: texts.count, origin: .remote))
        var others: [(Int, String)] = []
        for row in 0..<texts.count {
            switch reader.process(rowAt: row, row: row, page: 4) {
            case .passed: break
            case .filteredOut: others.append((row, "\(row) filtered"))
            case .skipped: others.append((row, "\(row) skipped"))
            case .failed(let error):
                reader.flush(into: &events)
                events.appendError(error.event(pipeline: "p"))
                others.append((row, "\(row) failed \(error.code) \(error.description)"))
            }
        }
        reader.flush(into: &events)
        var lines = others
        for index in 0..<events.outcomeCount {
            guard case .selected(let row, let item) = events.outcome(at: index), let text = events.text(ofOutcome: index) else { continue }
            #expect((try? JSONValue(parsing: Array(text))) == item, "row \(row): the value read back from the text is not the written one")
            lines.append((row, "\(row) selected \(String(decoding: text, as: UTF8.self))"))
        }
        return lines.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// The rows as a page's texts, checked as a run checks them: with where the members the
    /// plan reads are.
    private static func texts(_ rows: [String], separator: String = ",", plan: RowTextPlan) throws -> JSONElementTexts {
        let document = Array(("[" + rows.joined(separator: separator) + "]").utf8)
        let texts = try #require(try JSONValue.parse(document, keepingElementTextsAt: [], skippingElements: true, findingMembers: plan.selection).texts)
        #expect(texts.memberTape?.selection == plan.selection)
        return texts
    }

    /// The same texts without the members' positions (as a file source keeps them), so the
    /// reader finds them itself, a batch of rows at a time.
    private static func unfound(_ texts: JSONElementTexts) -> JSONElementTexts {
        var copy = JSONElementTexts()
        for row in 0..<texts.count {
            Array(texts[row]!).withUnsafeBytes { copy.append(textOfParsedValue: $0) }
        }
        return copy
    }

    /// Runs both paths on `rows` and expects the same outcomes; returns them.
    @discardableResult
    private static func expectSamePaths(
        _ rows: [String], convert: ConvertSpec?, filter: String? = nil, separator: String = ",",
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws -> [String] {
        let converter = try RowConverter(spec: convert)
        let rowFilter = try filter.map { try RowFilter(expression: $0) }
        let skips = convert?.onInvalid == .skip
        let stages = RowStages(converter: converter, filter: rowFilter, skipsInvalidRows: skips)
        let plan = try #require(RowTextPlan(converter: converter, filter: rowFilter), sourceLocation: sourceLocation)
        let texts = try texts(rows, separator: separator, plan: plan)
        let tree = treeOutcomes(texts, stages: stages)
        let text = textOutcomes(texts, plan: plan, stages: stages)
        let unfoundText = textOutcomes(unfound(texts), plan: plan, stages: stages)
        for (path, outcomes) in [("text path (members found by the source)", text), ("text path (members found by the reader)", unfoundText)] {
            // The first row that differs, rather than two whole pages.
            if let row = (0..<min(outcomes.count, tree.count)).first(where: { outcomes[$0] != tree[$0] })
                ?? (outcomes.count == tree.count ? nil : min(outcomes.count, tree.count))
            {
                Issue.record("row \(row): \(path) \(outcomes.dropFirst(row).first ?? "-") vs tree path \(tree.dropFirst(row).first ?? "-")", sourceLocation: sourceLocation)
            }
        }
        return text
    }

    @Test func aBookmarkRowIsWrittenAsTheTreePathWritesIt() throws {
        let rows = [
            #"{"companyId":20116,"createDate":1763716500000,"description":"Liferay's home","entryId":9007199254740993,"folderId":0,"groupId":20143,"modifiedDate":1763716500250,"name":"Liferay","url":"https://www.liferay.com","userName":"Test Test","visits":3}"#
        ]
        let outcomes = try Self.expectSamePaths(rows, convert: ConvertSpec(model: .bookmark))
        #expect(outcomes == [
            #"0 selected {"entryId":9007199254740993,"name":"Liferay","url":"https://www.liferay.com","description":"Liferay's home","folderId":0,"groupId":20143,"createDate":"2025-11-21T09:15:00Z","modifiedDate":"2025-11-21T09:15:00.250Z","userName":"Test Test"}"#
        ])
    }

    @Test func valuesThatAreNotCopiedGoTheTreePathsWay() throws {
        // Escapes, decimals, -0, ids beyond Int64, numbers in strings, ISO text dates, years
        // beyond 9999, nested values and repeated keys.
        let rows = [
            #"{"entryId":-0,"name":"caf\u00e9 \"quoted\"","url":"a\/b","folderId":1.0,"groupId":"42","createDate":"2026-11-21T09:15:00+01:00","modifiedDate":253402300800000}"#,
            #"{"entryId":"7","name":12,"url":"x","description":{"a":[1,"}"]},"folderId":1e3,"groupId":-9223372036854775808,"createDate":-62167219200001,"modifiedDate":"1763716500000"}"#,
            #"{"entryId":1,"url":"first","url":"second","name":true,"userName":null,"createDate":null}"#,
        ]
        try Self.expectSamePaths(rows, convert: ConvertSpec(model: .bookmark))
    }

    @Test func conversionErrorsNameTheRowAndAreSkippedWhenAsked() throws {
        let rows = [
            #"{"entryId":1,"url":"ok"}"#,
            #"{"entryId":2}"#,
            #"{"entryId":1.5,"url":"not an int"}"#,
            #"[1,2]"#,
            #""a string row""#,
            #"{"entryId":9223372036854775808,"url":"beyond Int64"}"#,
            #"{"entryId":5,"url":"last"}"#,
        ]
        let failing = try Self.expectSamePaths(rows, convert: ConvertSpec(model: .bookmark))
        // No url, 1.5, an array, a string, an id beyond Int64.
        #expect(failing.filter { $0.contains("failed") }.count == 5)
        let skipping = try Self.expectSamePaths(rows, convert: ConvertSpec(model: .bookmark, onInvalid: .skip))
        #expect(skipping.filter { $0.contains("skipped") }.count == 5)
    }

    @Test func rowsOfChangingShapesAndEscapedKeys() throws {
        let rows = [
            #"{"entryId":1,"url":"a","name":"n"}"#,
            #"{"entryId":2,"url":"b","name":"n"}"#,
            #"{"url":"c","entryId":3}"#,
            #"{"entryI":4,"entryId":4,"url":"d","urls":"no"}"#,
            #"{"entryId":5,"ur\u006c":"escaped key","name":"m"}"#,
            #"{}"#,
            #"{"entryId":6,"url":"e","name":"n"}"#,
        ]
        try Self.expectSamePaths(rows, convert: ConvertSpec(model: .bookmark))
    }

    @Test func localizedAndDatedModels() throws {
        let rows = [
            #"{"articleId":"A1","id":3,"groupId":20143,"title":"<?xml version='1.0'?><root available-locales=\"en_US,es_ES\" default-locale=\"en_US\"><Title language-id=\"en_US\">Hi</Title><Title language-id=\"es_ES\">Hola</Title></root>","description":{"en_US":"D","es_ES":"Desc"},"content":"plain","createDate":1763716500000,"DDMStructureKey":"BASIC"}"#,
            #"{"articleId":42,"title":"no xml","createDate":"2026-01-02"}"#,
        ]
        try Self.expectSamePaths(rows, convert: ConvertSpec(model: .webContent, locale: "es_ES"))
        try Self.expectSamePaths(
            [#"{"entryId":1,"classNameId":2,"className":"com.liferay.X","title":{"en_US":"T"},"object":{"k":[1,2.50]},"modifiedDate":5}"#],
            convert: ConvertSpec(model: .asset))
    }

    @Test func aFieldMappingWithTypesDefaultsAndOneKeyReadTwice() throws {
        let fields = [
            FieldMapping(name: "id", from: "entryId", type: .int, required: true),
            FieldMapping(name: "idText", from: "entryId", type: .string),
            FieldMapping(name: "raw", from: "entryId"),
            FieldMapping(name: "visits", from: "visits", type: .number, defaultValue: 0),
            FieldMapping(name: "on", from: "flag", type: .bool),
            FieldMapping(name: "when", from: "createDate", type: .date),
            FieldMapping(name: "what", from: "payload"),
            FieldMapping(name: "label", from: "label", defaultValue: "none"),
        ]
        let rows = [
            #"{"entryId":12,"visits":3,"flag":true,"createDate":0,"payload":[1,{"x":null}],"label":"L"}"#,
            #"{"entryId":"13","visits":"4.5","flag":"yes","createDate":1}"#,
            #"{"entryId":14,"visits":null,"flag":1,"createDate":"bad date"}"#,
            #"{"entryId":15,"flag":false,"payload":"caf\u00e9","label":null}"#,
            #"{"visits":1}"#,
        ]
        try Self.expectSamePaths(rows, convert: ConvertSpec(fields: fields))
    }

    @Test func filtersSelectTheSameRowsWithAndWithoutAConvert() throws {
        let rows = [
            #"{"entryId":1,"name":"tmp one","url":"https://example.com/1","createDate":1}"#,
            #"{"entryId":2,"name":"keep","url":"https://example.com/2","createDate":2}"#,
            #"{"entryId":3,"name":"keep","url":"https://other.org/3"}"#,
            #"{"entryId":4,"name":"esc\"aped","url":"https:\/\/example.com\/4","tags":["a","b"]}"#,
        ]
        let filters = [
            #"url contains "example.com" and not (name starts-with "tmp")"#,
            "entryId > 1 and entryId <= 3",
            "createDate exists",
            #"createDate == "1970-01-01T00:00:00.002Z""#,
            #"tags[1] == "b""#,
            "name < 3",
        ]
        for filter in filters {
            let converted = try Self.expectSamePaths(rows, convert: ConvertSpec(model: .bookmark), filter: filter)
            let filtered = try Self.expectSamePaths(rows, convert: ConvertSpec?.none, filter: filter)
            #expect(converted.count == rows.count && filtered.count == rows.count)
        }
        // A filter over the raw rows writes them as received, escapes and all.
        let asReceived = try Self.expectSamePaths(rows, convert: ConvertSpec?.none, filter: "entryId == 4")
        #expect(asReceived.last == #"3 selected {"entryId":4,"name":"esc\"aped","url":"https:\/\/example.com\/4","tags":["a","b"]}"#)
    }

    @Test func stagesThatCannotReadTextsHaveNoPlan() throws {
        #expect(RowTextPlan(converter: try RowConverter(spec: nil), filter: nil) == nil)
        #expect(RowTextPlan(converter: try RowConverter(spec: ConvertSpec(model: .ddlRecord)), filter: nil) == nil)
        let nested = try RowConverter(spec: ConvertSpec(fields: [FieldMapping(name: "email", from: "author.email")]))
        #expect(RowTextPlan(converter: nested, filter: nil) == nil)
        let both = try RowConverter(spec: ConvertSpec(model: .bookmark, fields: [FieldMapping(name: "id", from: "entryId")]))
        #expect(RowTextPlan(converter: both, filter: nil) == nil)
    }

    /// Random rows from a pool of awkward member texts, in random shapes (the same shape
    /// repeated, keys reordered, repeated or escaped), through every model and a filter.
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func randomRowsTakeTheSamePath(seed: UInt64) throws {
        var random = Mutator(seed: seed, corpus: [[]], tokens: [""])
        let keys = [
            "entryId", "name", "url", "description", "folderId", "groupId", "createDate", "modifiedDate", "userName",
            "articleId", "title", "content", "id", "classNameId", "object", "visits", #"na\u006de"#, "urlx",
        ]
        let values = [
            #""plain""#, #""esc\"aped""#, #""caf\u00e9""#, #""é""#, #""a\/b""#, #""""#, "0", "-0", "7", "-12",
            "9007199254740993", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
            "12345678901234567890123", "1.0", "1.5", "1e3", "-1E-2", "true", "false", "null", "{}", "[]",
            #"{"a":[1,{"b":"}"}]}"#, #"[1,"]",null]"#, #""1763716500000""#, #""2026-11-21T09:15:00Z""#, #""2026-11-21""#,
            #"" 42 ""#, "253402300800000", "-62167219200001", "1763716500250", #"{"en_US":"Hi","es_ES":"Hola"}"#,
        ]
        var rows: [String] = []
        var shape: [String] = []
        for _ in 0..<400 {
            if random.below(10) == 0 {
                rows.append(["[1]", #""row""#, "3", "null", "{}"][random.below(5)])
                continue
            }
            if shape.isEmpty || random.below(4) == 0 {
                shape = (0..<random.below(keys.count + 3)).map { _ in keys[random.below(keys.count)] }
            }
            // Some rows pretty-printed: the members' recorded positions are in the compact text.
            let (open, colon, comma) = random.below(3) == 0 ? ("{\n  ", " : ", " ,\n\t") : ("{", ":", ",")
            rows.append(open + shape.map { #""\#($0)""# + colon + values[random.below(values.count)] }.joined(separator: comma) + (open == "{" ? "}" : " \r\n}"))
        }
        let specs: [(ConvertSpec?, String?)] = [
            (ConvertSpec(model: .bookmark), nil),
            (ConvertSpec(model: .bookmark, onInvalid: .skip), #"url contains "a" or entryId > 5"#),
            (ConvertSpec(model: .webContent, locale: "es_ES", onInvalid: .skip), "title exists"),
            (ConvertSpec(model: .asset), nil),
            (ConvertSpec(fields: [
                FieldMapping(name: "id", from: "entryId", type: .int), FieldMapping(name: "name", from: "name"),
                FieldMapping(name: "when", from: "createDate", type: .date, defaultValue: 0),
                FieldMapping(name: "n", from: "visits", type: .number), FieldMapping(name: "b", from: "urlx", type: .bool),
                FieldMapping(name: "s", from: "folderId", type: .string, required: true),
            ], onInvalid: .skip), "id > 0 or name == \"plain\""),
            (nil, #"name == "plain" or entryId >= 7"#),
            // Filters a plan decides on the members' texts where it can (see MemberTextFilter).
            (ConvertSpec(model: .bookmark, onInvalid: .skip), #"name contains "a" and not (url starts-with "pl") or entryId in [7, "x", null]"#),
            (ConvertSpec(model: .bookmark, onInvalid: .skip), #"createDate > "2026" or modifiedDate == null or folderId < groupId"#),
            (nil, #"name < "q" and url != null or description ends-with "" or not (createDate exists)"#),
            (nil, "visits or entryId == -12"),
            (nil, #"name >= 7 or "plainer" starts-with name"#),
        ]
        for (convert, filter) in specs {
            try Self.expectSamePaths(rows, convert: convert, filter: filter, separator: random.below(2) == 0 ? "," : " ,\n ")
        }
    }

    @Test func membersOfPrettyPrintedRowsAreFoundInTheirCompactTexts() throws {
        let rows = [
            "{ \"entryId\" : 1,\n  \"url\" :\t\"a b\" , \"tags\" : { \"k\" : [ 1 , 2 ] },\r\n \"description\": \" d , e \" }",
            "{\"entryId\":2,\"url\":\"b\",\"name\":\"m\"}",
            "  {  }  ",
            "{ \"url\" : \"c\" , \"entryId\" : 3 }",
        ]
        let outcomes = try Self.expectSamePaths(rows, convert: ConvertSpec(model: .bookmark), separator: " ,\n\t")
        let unset = #""folderId":null,"groupId":null,"createDate":null,"modifiedDate":null"#
        #expect(outcomes == [
            #"0 selected {"entryId":1,"name":null,"url":"a b","description":" d , e ","# + unset + "}",
            #"1 selected {"entryId":2,"name":"m","url":"b","description":null,"# + unset + "}",
            "2 failed convert page 4, row 2: required field 'entryId' (from 'entryId') is missing",
            #"3 selected {"entryId":3,"name":null,"url":"c","description":null,"# + unset + "}",
        ])
    }
}
