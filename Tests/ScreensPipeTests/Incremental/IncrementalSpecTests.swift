import Foundation
import ScreensBus
import Testing
@testable import ScreensPipeCore
import ScreensPipe

@Suite struct IncrementalSpecTests {
    @Test func decodesEveryKeyAndPlanShowsThem() throws {
        let spec = try loadPipeline(
            minimalSource + """

                incremental:
                  cursor: modifiedDate
                  type: date
                  initial: 2026-01-01T00:00:00Z
                  lookback: 10m
                  end: 2027-01-01T00:00:00Z
                """)
        let incremental = try #require(spec.incremental)
        #expect(incremental.cursor.description == "modifiedDate")
        #expect(incremental.row == .raw)
        #expect(incremental.type == .date)
        #expect(incremental.initial == .date(epochMilliseconds: 1_767_225_600_000))
        #expect(incremental.lookback == .duration(milliseconds: 600_000))
        #expect(incremental.end == .date(epochMilliseconds: 1_798_761_600_000))
        let plan = try RunPlan(spec: spec, pages: 1).text
        #expect(plan.contains("incremental:"))
        #expect(plan.contains("initial: 2026-01-01T00:00:00Z"))
        #expect(plan.contains("lookback: 10m"))
        #expect(plan.contains("# incremental: client-side only (a file source has no generic filter; every row is read)"))
    }

    @Test func integerCursorInTheConvertedRowTakesAnAmountOfLookback() throws {
        let spec = try loadPipeline(minimalSource + "\nincremental: { cursor: 'meta.version', in: converted, type: integer, lookback: 5, initial: 12 }\n")
        let incremental = try #require(spec.incremental)
        #expect(incremental.row == .converted)
        #expect(incremental.lookback == .amount(5))
        #expect(incremental.initial == .integer(12))
    }

    @Test(arguments: [
        ("incremental: { type: date }", "missing required key 'cursor' in incremental"),
        ("incremental: { cursor: modifiedDate }", "missing required key 'type'"),
        ("incremental: { cursor: modifiedDate, type: time }", "expected one of date, integer, string for 'type', found 'time'"),
        ("incremental: { cursor: 'a..b', type: date }", "invalid field path 'a..b'"),
        ("incremental: { cursor: modifiedDate, type: date, initial: yesterday }", "expected an ISO 8601 date such as 2026-01-31T10:00:00Z for 'initial', found 'yesterday'"),
        ("incremental: { cursor: id, type: integer, end: 99999999999999999999 }", "expected a 64-bit integer such as 1200 for 'end'"),
        ("incremental: { cursor: id, type: integer, initial: 10, end: 5 }", "'end' (5) comes before 'initial' (10)"),
        ("incremental: { cursor: name, type: string, lookback: 10 }", "'lookback' needs a date or integer cursor"),
        ("incremental: { cursor: id, type: integer, lookback: 0 }", "'lookback'"),
        ("incremental: { cursor: modifiedDate, type: date, lookback: forever }", "expected a duration"),
        ("incremental: { cursor: id, type: integer, since: 3 }", "unknown key 'since'"),
        ("incremental: [modifiedDate]", "expected a mapping for 'incremental'"),
    ])
    func refusesBadSettingsWithALine(_ section: String, _ expected: String) {
        let errors = configErrors(minimalSource + "\n" + section + "\n")
        #expect(errors.contains { $0.contains(expected) }, "\(errors)")
    }

    @Test func aHugeCursorTextIsRefusedNotKept() {
        let errors = configErrors(minimalSource + "\nincremental: { cursor: id, type: string, initial: '\(String(repeating: "z", count: 5000))' }\n")
        #expect(errors.contains { $0.contains("text of at most 1024 bytes") }, "\(errors)")
    }

    @Test func aCursorPlaceholderWithoutAnIncrementalSectionIsRefused() {
        let errors = configErrors(
            """
            source:
              type: rest
              url: http://127.0.0.1:1/items
              query: { since: "{cursor}" }
              paginate: offset
            """)
        #expect(errors.contains { $0.contains("query parameter 'since' says {cursor}, which only an 'incremental:' section fills") }, "\(errors)")
    }
}
