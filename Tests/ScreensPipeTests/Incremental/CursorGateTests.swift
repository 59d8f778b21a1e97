import Foundation
import ScreensBus
import Testing
@testable import ScreensPipeCore
import ScreensPipe

@Suite struct CursorGateTests {
    static let key = StateKey(pipeline: "p", list: "l")

    private func row(_ id: Int64, _ modified: JSONValue) -> JSONValue { ["id": .int(id), "modifiedDate": modified] }

    private func spec(_ type: CursorType = .date, lookback: CursorLookback? = nil, initial: CursorValue? = nil, end: CursorValue? = nil) throws
        -> IncrementalSpec
    {
        IncrementalSpec(cursor: try FieldPath("modifiedDate"), type: type, initial: initial, lookback: lookback, end: end)
    }

    private func admitted(_ gate: CursorGate, _ rows: [JSONValue]) throws -> [Int64] {
        try rows.filter { try gate.admits(raw: $0, item: nil) }.compactMap { $0["id"]?.int64Value }
    }

    @Test func firstRunDeliversEverythingAndRemembersTheLargestValueWithItsRows() throws {
        let gate = CursorGate(spec: try spec(), state: nil)
        let rows = [row(1, 1000), row(2, 3000), row(3, "1970-01-01T00:00:03Z"), row(4, 2000)]
        #expect(try admitted(gate, rows) == [1, 2, 3, 4])
        let next = try #require(gate.nextState)
        #expect(next.cursor == .date(epochMilliseconds: 3000))
        #expect(next.boundary == [CacheKey.digest(rows[1].jsonString), CacheKey.digest(rows[2].jsonString)])
    }

    @Test func equalValuesAtTheCursorAreDeliveredOnceEach() throws {
        let first = CursorGate(spec: try spec(), state: nil)
        let old = [row(1, 1000), row(2, 2000)]
        _ = try admitted(first, old)
        let state = try #require(first.nextState)
        // Row 3 was written after the first run with the same timestamp as row 2.
        let second = CursorGate(spec: try spec(), state: state)
        #expect(try admitted(second, old + [row(3, 2000), row(4, 2500)]) == [3, 4])
        let third = CursorGate(spec: try spec(), state: try #require(second.nextState))
        #expect(try admitted(third, old + [row(3, 2000), row(4, 2500)]).isEmpty)
        // Nothing new: the state stays as it was.
        #expect(third.nextState == second.nextState)
    }

    @Test func aStalledCursorKeepsTheBoundaryOfEveryRunAtThatValue() throws {
        let first = CursorGate(spec: try spec(), state: nil)
        _ = try admitted(first, [row(1, 2000)])
        let second = CursorGate(spec: try spec(), state: try #require(first.nextState))
        #expect(try admitted(second, [row(1, 2000), row(2, 2000)]) == [2])
        let third = CursorGate(spec: try spec(), state: try #require(second.nextState))
        #expect(try admitted(third, [row(1, 2000), row(2, 2000), row(3, 2000)]) == [3])
    }

    @Test func lookbackReadsTheWindowAgainAndInitialIsExclusive() throws {
        let state = CursorPosition(cursor: .date(epochMilliseconds: 10_000), boundary: [])
        let gate = CursorGate(spec: try spec(lookback: .duration(milliseconds: 3000)), state: state)
        #expect(try admitted(gate, [row(1, 6000), row(2, 7000), row(3, 7001), row(4, 10_000), row(5, 12_000)]) == [3, 4, 5])
        #expect(gate.lowerBound == .date(epochMilliseconds: 7000))
        let fromInitial = CursorGate(spec: try spec(initial: .date(epochMilliseconds: 2000)), state: nil)
        #expect(try admitted(fromInitial, [row(1, 1000), row(2, 2000), row(3, 2001)]) == [3])
    }

    @Test func rowsPastTheEndAreNotDeliveredAndDoNotMoveTheCursor() throws {
        let gate = CursorGate(spec: try spec(.integer, end: .integer(20)), state: nil)
        #expect(try admitted(gate, [row(1, 10), row(2, 20), row(3, 21), row(4, "15")]) == [1, 2, 4])
        #expect(gate.nextState?.cursor == .integer(20))
    }

    @Test(arguments: [
        (CursorType.date, JSONValue.string("not a date"), "is not a date: found \"not a date\""),
        (.date, .bool(true), "is not a date: found true"),
        (.integer, .double(1.5), "is not an integer: found 1.5"),
        (.integer, .string("12abc"), "is not an integer"),
        (.integer, .number("123456789012345678901234567890"), "is not an integer"),
        (.string, .int(3), "is not a string: found 3"),
        (.string, .string(String(repeating: "s", count: 100_000)), "is not a string: found \"sss"),
        (.date, .null, "is missing from the raw row"),
    ])
    func aCursorOfTheWrongTypeInARowIsARowErrorNamingThePath(_ type: CursorType, _ value: JSONValue, _ message: String) throws {
        let gate = CursorGate(spec: try spec(type), state: nil)
        #expect {
            _ = try gate.admits(raw: row(1, value), item: nil)
        } throws: { error in
            guard let error = error as? ScreensPipeError else { return false }
            return error.code == .conversion && error.message.contains("'modifiedDate'") && error.message.contains(message)
                && error.message.count < 300
        }
    }

    @Test func theStateDocumentRoundTripsWithItsPendingCommit() throws {
        let position = CursorPosition(cursor: .string("b'\"\u{0}"), boundary: ["sha256:00", "sha256:01"])
        let output = OutputIdentity(path: "/tmp/out \"x\".jsonl", device: UInt64.max, inode: 1 << 63)
        for state in [
            IncrementalState(position: position), IncrementalState(position: nil),
            IncrementalState(position: nil, pending: (position, output)),
        ] {
            let read = try IncrementalState(document: state.document(type: .string), type: .string, key: Self.key)
            #expect(read == state)
        }
    }

    @Test(arguments: [
        ("", "it is not JSON"),
        ("{\"version\":1,", "it is not JSON"),
        ("[]", "it is not a JSON object"),
        ("{\"version\":2,\"type\":\"date\",\"cursor\":\"2026-01-01T00:00:00Z\",\"boundary\":[]}", "its version is 2"),
        ("{\"version\":1,\"type\":\"integer\",\"cursor\":\"5\",\"boundary\":[]}", "its cursor is of type integer, the pipeline's is date"),
        ("{\"version\":1,\"type\":\"date\",\"cursor\":\"last tuesday\",\"boundary\":[]}", "its cursor is not a date"),
        ("{\"version\":1,\"type\":\"date\",\"cursor\":\"2026-01-01T00:00:00Z\",\"boundary\":{}}", "its boundary is not a list"),
        ("{\"version\":1,\"type\":\"date\",\"cursor\":\"2026-01-01T00:00:00Z\",\"boundary\":[1]}", "something that is not a row digest"),
        ("{\"version\":1,\"type\":\"date\",\"cursor\":null,\"boundary\":[],\"pending\":{\"cursor\":\"2026-01-01T00:00:00Z\",\"boundary\":[]}}", "its pending commit is not"),
        ("{\"version\":1,\"type\":\"date\",\"cursor\":null,\"boundary\":[],\"pending\":{\"cursor\":\"2026-01-01T00:00:00Z\",\"boundary\":[],\"output\":{\"path\":\"x\",\"device\":-1,\"inode\":2}}}", "its pending commit is not"),
        (String(repeating: "[", count: 100_000), "it is not JSON"),
    ])
    func aCorruptStateDocumentIsAStateErrorThatSaysHowToStartOver(_ document: String, _ reason: String) {
        #expect {
            _ = try IncrementalState(document: document, type: .date, key: Self.key)
        } throws: { error in
            guard let error = error as? ScreensPipeError else { return false }
            return error.code == .state && error.message.contains(reason) && error.message.contains("screens-pipe state reset")
        }
    }

    @Test func aNewestFirstListEndsAtThePageWhollyBehindTheCursorAndRefusesAnotherOrder() throws {
        let state = CursorPosition(cursor: .date(epochMilliseconds: 5_000), boundary: [])
        let gate = CursorGate(spec: try spec(), state: state, endsEarly: true)
        #expect(try gate.endsList(afterPage: [row(1, 9_000), row(2, 5_000)], index: 0) == false)
        #expect(!gate.endedEarly)
        #expect(try gate.endsList(afterPage: [row(3, 4_999), row(4, 1_000)], index: 1) == true)
        #expect(gate.endedEarly)

        let unsorted = CursorGate(spec: try spec(), state: state, endsEarly: true)
        _ = try unsorted.endsList(afterPage: [row(1, 9_000), row(2, 8_000)], index: 0)
        #expect {
            _ = try unsorted.endsList(afterPage: [row(3, 1_000), row(4, 8_500)], index: 1)
        } throws: { error in
            (error as? ScreensPipeError)?.code == .pagination && (error as? ScreensPipeError)?.page == 1
        }
        // Without a cursor (a first run) nothing ends early.
        let first = CursorGate(spec: try spec(), state: nil, endsEarly: true)
        #expect(try first.endsList(afterPage: [row(1, 1)], index: 0) == false)
    }
}
