import Foundation
import ScreensBus
import Testing

@testable import ScreensPipeCore
import ScreensPipe

/// The key sweep of a followed list with a cursor: what it compares, what it asks the
/// portal, and the `follow:` section that schedules it.
@Suite struct FollowKeySweepPlanTests {
    private func snapshot(_ ids: [Int64]) -> ListSnapshot {
        var snapshot = ListSnapshot()
        for id in ids { snapshot.set("[\(id)]", digest: "d\(id)") }
        return snapshot
    }

    /// A key one sweep misses is only marked; the next sweep without it deletes it, one that
    /// finds it clears the mark. Keys only the sweep has (filtered out, or newer than the
    /// poll) are not the follow's.
    @Test func aKeyIsDeletedWhenTwoSweepsInARowMissIt() {
        let before = snapshot([1, 2, 3])
        let once = ChangeDetection.sweep(["[1]", "[3]", "[9]"], with: before, keyFields: ["id"], after: 5)
        #expect(once.changes.isEmpty)
        #expect(once.snapshot.missing == ["[2]"])
        #expect(once.snapshot.count == 3)
        #expect(once.snapshot.digest(of: "[2]") == "d2")

        let back = ChangeDetection.sweep(["[1]", "[2]", "[3]"], with: once.snapshot, keyFields: ["id"], after: 5)
        #expect(back.changes.isEmpty)
        #expect(back.snapshot.missing.isEmpty)

        let twice = ChangeDetection.sweep(["[1]", "[3]"], with: once.snapshot, keyFields: ["id"], after: 5)
        #expect(twice.changes.map(\.kind) == [.deleted])
        #expect(twice.changes.map(\.sequence) == [6])
        let key: JSONValue = ["id": 2]
        #expect(twice.changes.first?.key == key)
        #expect(twice.changes.first?.itemText == nil)
        #expect(twice.snapshot.count == 2)
        #expect(twice.snapshot.digest(of: "[2]") == nil)
        #expect(twice.snapshot.missing.isEmpty)
    }

    @Test func theScheduleCountsPollsOrTimeAndAMissingKeySweepsAtOnce() {
        var state = FollowState()
        state.snapshot = snapshot([1, 2])
        state.polls = 2
        #expect(!KeySweep.isDue(.polls(3), state: state, now: Date()))
        state.polls = 3
        #expect(KeySweep.isDue(.polls(3), state: state, now: Date()))
        state.sweptAtPoll = 3
        state.polls = 4
        #expect(!KeySweep.isDue(.polls(3), state: state, now: Date()))
        state.snapshot.set("[2]", digest: "d2", missing: true)
        #expect(KeySweep.isDue(.polls(3), state: state, now: Date()))

        var timed = FollowState()
        timed.snapshot = snapshot([1])
        #expect(KeySweep.isDue(.interval(.seconds(60)), state: timed, now: Date()))
        timed.sweptAt = Int64(Date().timeIntervalSince1970 * 1000)
        #expect(!KeySweep.isDue(.interval(.seconds(60)), state: timed, now: Date()))
        #expect(KeySweep.isDue(.interval(.seconds(60)), state: timed, now: Date().addingTimeInterval(61)))
        // An empty snapshot has nothing a sweep could delete.
        #expect(!KeySweep.isDue(.polls(1), state: FollowState(), now: Date()))
    }

    @Test func theSweepStateSurvivesTheDocument() throws {
        var state = FollowState()
        state.snapshot = snapshot([1])
        state.sweptAtPoll = 7
        state.sweptAt = 1_710_000_000_000
        let key = StateKey(pipeline: "p", list: "follow:l")
        let read = try FollowState(document: state.document, key: key)
        #expect(read == state)
    }

    private func load(_ yaml: String) throws(ConfigurationErrors) -> PipelineSpec {
        try PipelineLoader(environment: [:]).load(yaml: yaml, file: "sweep.yaml")
    }

    private static let headless = """
        name: sweep
        source:
          type: liferay-headless
          server: http://127.0.0.1:1
          path: /o/headless-delivery/v1.0/sites/20143/structured-contents
          query: { flatten: "true", fields: "id,title,dateModified" }
        incremental: { cursor: dateModified, type: date }
        filter: { where: 'title contains "Liferay"', limit: 3 }
        follow: { sweep-every: 10 }

        """

    /// The sweep asks a headless portal for the key fields only, and runs neither the filter
    /// nor the cursor: key-only rows through `title contains` would all be dropped.
    @Test func aHeadlessSweepAsksForTheKeysOnlyWithoutFilterOrCursor() throws {
        let spec = try load(Self.headless)
        #expect(spec.follow?.sweepEvery == .polls(10))
        let sweep = try KeySweep.pipeline(sweeping: spec, keyFields: ["id"])
        #expect(sweep.filter == nil)
        #expect(sweep.incremental == nil)
        #expect(sweep.cache == nil)
        let query = try #require(sweep.source.type.settings(as: HeadlessSourceSpec.self)).query
        #expect(query.map { "\($0.name)=\($0.value)" } == ["flatten=true", "fields=id"])
    }

    /// With a `fields:` mapping the key is read as the follow reads it, through the key's
    /// mapping alone, from the member it maps.
    @Test func aMappedKeyIsReadThroughItsMappingAlone() throws {
        let spec = try load(
            Self.headless + """
                convert:
                  fields:
                    articleId: { from: id, type: string }
                    title: title
                """)
        let sweep = try KeySweep.pipeline(sweeping: spec, keyFields: ["articleId"])
        #expect(sweep.convert?.fields?.map(\.name) == ["articleId"])
        let query = try #require(sweep.source.type.settings(as: HeadlessSourceSpec.self)).query
        #expect(query.last.map { "\($0.name)=\($0.value)" } == "fields=id")
        #expect(throws: ScreensPipeError.self) { try KeySweep.pipeline(sweeping: spec, keyFields: ["entryId"]) }
    }

    @Test func aRestSweepSendsItsFieldsParameterAndNoCursor() throws {
        let spec = try load(
            """
            name: sweep-rest
            source:
              type: rest
              server: http://127.0.0.1:1
              url: /rest/bookmarks/offset
              records: data.records
              total: meta.total
              query: { modified-since: "{cursor}", kind: all }
              paginate: offset
            incremental: { cursor: modifiedDate, type: date }
            follow: { sweep-every: 5m, sweep-fields: select }
            """)
        #expect(spec.follow?.sweepEvery == .interval(.seconds(300)))
        let sweep = try KeySweep.pipeline(sweeping: spec, keyFields: ["entryId"])
        let query = try #require(sweep.source.type.settings(as: RESTSourceSpec.self)).query
        #expect(query.map { "\($0.name)=\($0.value)" } == ["kind=all", "select=entryId"])
    }

    @Test func followSectionMistakesAreConfigurationErrors() throws {
        let base = """
            name: sweep
            source:
              type: liferay-headless
              server: http://127.0.0.1:1
              path: /o/headless-delivery/v1.0/sites/20143/structured-contents

            """
        func errors(_ yaml: String) -> String {
            do {
                _ = try load(yaml)
                return ""
            } catch {
                return error.errors.map(\.message).joined(separator: "\n")
            }
        }
        #expect(errors(base + "follow: { sweep-every: 10 }").contains("'follow.sweep-every' needs 'incremental:'"))
        let incremental = base + "incremental: { cursor: dateModified, type: date }\n"
        #expect(errors(incremental + "follow: { sweep-every: 0 }").contains("'sweep-every' must be between 1 and"))
        #expect(errors(incremental + "follow: { sweep-every: soon }").contains("expected a duration"))
        #expect(errors(incremental + "follow: { sweep-every: 3, sweep-fields: f }").contains("'follow.sweep-fields' is for a 'rest' source"))
        #expect(errors(incremental + "follow: { sweep-evry: 3 }").contains("did you mean 'sweep-every'"))
        #expect(errors(incremental + "follow: { sweep-every: 3 }").isEmpty)
    }
}
