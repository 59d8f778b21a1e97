import ScreensBus
import Testing
@testable import ScreensPipeCore
@testable import ScreensPipePostgres
import ScreensPipe

/// `mode:` and `deleted:` of the `postgres` sink: what the decoder accepts and refuses, and
/// which rows a deletion marker picks.
@Suite struct PostgresSinkDeleteSpecTests {
    private static let sink = #"sink: { type: postgres, url: "postgres://u@127.0.0.1:5432/d", table: t, key: entryId"#

    @Test func modeAndDeletedDecode() throws {
        let spec = try loadPipeline(minimalSource + "\n" + Self.sink + ", mode: mirror, deleted: { field: status, equals: [8, trashed] } }")
        guard let postgres = spec.sink.destination.postgres else { throw CancellationError() }
        #expect(postgres.mode == .mirror)
        #expect(postgres.deleted == .init(field: "status", values: [.int(8), .string("trashed")]))
        let plain = try loadPipeline(minimalSource + "\n" + Self.sink + " }")
        guard let upsert = plain.sink.destination.postgres else { throw CancellationError() }
        #expect(upsert.mode == .upsert)
        #expect(upsert.deleted == nil)
    }

    @Test func mirrorOfAPartialListIsRefused() {
        let incremental = configErrors(minimalSource + "\n" + Self.sink + ", mode: mirror }\nincremental: { cursor: modifiedDate, type: date }")
        #expect(incremental.contains { $0.contains("an incremental run delivers only what changed") }, "\(incremental)")
        let limited = configErrors(minimalSource + "\n" + Self.sink + ", mode: mirror }\nfilter: { limit: 10 }")
        #expect(limited.contains { $0.contains("'filter.limit' stops before its end") }, "\(limited)")
    }

    @Test func hostileDeletedSectionsAreClearErrors() {
        let cases: [(String, String)] = [
            ("deleted: { field: status }", "missing required key 'equals'"),
            ("deleted: { equals: 8 }", "missing required key 'field'"),
            ("deleted: { field: status, equals: [] }", "'deleted.equals' must be a value"),
            ("deleted: { field: status, equals: { a: 1 } }", "'deleted.equals' must be a value"),
            ("deleted: { field: status, equals: 8, when: x }", "when"),
            ("deleted: { field: entryId, equals: 8 }", "a row's key cannot say it is deleted"),
            ("deleted: 8", "deleted"),
            ("mode: sometimes", "expected one of upsert, mirror"),
        ]
        for (yaml, expected) in cases {
            let errors = configErrors(minimalSource + "\n" + Self.sink + ", " + yaml + " }")
            #expect(errors.contains { $0.contains(expected) }, "\(yaml): \(errors)")
        }
        let elsewhere = configErrors(minimalSource + "\nsink: { type: stdout, mode: mirror }")
        #expect(elsewhere.contains { $0.contains("key 'mode' applies only to sink type 'postgres'") }, "\(elsewhere)")
    }

    @Test func aMarkerMatchesItsValuesNumbersByValue() {
        let marker = PostgresSinkSpec.DeletionMarker(field: "status", values: [.int(8), .string("deleted")])
        #expect(marker.marks(["status": 8]))
        #expect(marker.marks(["status": .double(8)]))
        #expect(marker.marks(["status": "deleted"]))
        #expect(!marker.marks(["status": "8"]))
        #expect(!marker.marks(["status": 0]))
        #expect(!marker.marks(["status": .null]))
        #expect(!marker.marks(["other": 8]))
        #expect(!marker.marks(.array([8])))
    }

    @Test func onlyACompleteCleanRunEndsAMirror() {
        func finished(_ reason: RunStopReason, errors: Int = 0, skipped: Int? = nil, end: ListEnd? = .rowCount) -> RunFinished {
            var event = RunFinished(pipeline: "p", pages: 1, rows: 1, selected: 1, errors: errors, succeeded: errors == 0)
            event.reason = reason
            event.skipped = skipped
            event.end = end
            return event
        }
        func whole(_ event: RunFinished, skippedAPage: Bool = false, afterEndList: PostgresSinkSpec.MirrorAfterEndList = .keep) -> Bool {
            PostgresSink.deliveredTheWholeList(event, skippedAPage: skippedAPage, afterEndList: afterEndList)
        }
        #expect(whole(finished(.completed)))
        #expect(!whole(finished(.completed, skipped: 1)))
        #expect(!whole(finished(.completed, errors: 1)))
        for reason in [RunStopReason.limit, .failed, .interrupted, .outputClosed] {
            #expect(!whole(finished(reason)))
        }
        // A page an on-response rule skipped: its rows are missing, whatever the option says.
        #expect(!whole(finished(.completed), skippedAPage: true))
        #expect(!whole(finished(.completed), skippedAPage: true, afterEndList: .delete))
        // An end-list rule ends the list complete only when the sink says so.
        #expect(!whole(finished(.completed, end: .responseAction)))
        #expect(whole(finished(.completed, end: .responseAction), afterEndList: .delete))
    }

    @Test func mirrorAfterEndListDecodes() throws {
        let spec = try loadPipeline(minimalSource + "\n" + Self.sink + ", mode: mirror, mirror-after-end-list: delete }")
        guard let postgres = spec.sink.destination.postgres else { throw CancellationError() }
        #expect(postgres.mirrorAfterEndList == .delete)
        let plain = try loadPipeline(minimalSource + "\n" + Self.sink + ", mode: mirror }")
        guard let kept = plain.sink.destination.postgres else { throw CancellationError() }
        #expect(kept.mirrorAfterEndList == .keep)
        let upsert = configErrors(minimalSource + "\n" + Self.sink + ", mirror-after-end-list: delete }")
        #expect(upsert.contains { $0.contains("'mirror-after-end-list' applies only to 'mode: mirror'") }, "\(upsert)")
        let bad = configErrors(minimalSource + "\n" + Self.sink + ", mode: mirror, mirror-after-end-list: sometimes }")
        #expect(bad.contains { $0.contains("expected one of keep, delete") }, "\(bad)")
    }
}
