import ScreensBus
import Testing

@testable import ScreensPipeCore

/// How a run reads its rows follows from what each stage declares, and every stage declares.
@Suite struct RowReadPlanTests {
    /// The converter and filter a run builds from a `convert:` and a `filter.where`.
    private static func stages(convert: String?, filter: String?) throws -> (RowConverter, RowFilter?) {
        var yaml = "source: { type: file, path: rows.json }\n"
        if let convert { yaml += "convert: \(convert)\n" }
        let spec = try PipelineLoader(environment: [:]).load(yaml: yaml, file: "plan.yaml")
        return (try RowConverter(spec: spec.convert), try filter.map { (expression) throws(ScreensPipeError) in try RowFilter(expression: expression) })
    }

    private static func plan(
        convert: String? = nil, filter: String? = nil, incremental: Bool = false, fanOut: Bool = false, toSink: Bool = true
    ) throws -> RowReadPlan {
        let (converter, rowFilter) = try stages(convert: convert, filter: filter)
        return RowReadPlan(converter: converter, filter: rowFilter, incrementalCursor: incremental, fanOut: fanOut, deliversToSink: toSink)
    }

    /// For each stage, a run in which that stage alone needs the rows' values. A new
    /// ``RowReadingStage`` case fails ``everyStageIsAccountedFor`` until it has one here.
    private static let readingValues: [RowReadingStage.Kind: @Sendable () throws -> RowReadPlan] = [
        // A field read from a nested path cannot be copied from one member's text.
        .convert: { try RowReadPlanTests.plan(convert: "{ fields: { email: author.email } }") },
        // The filter never needs the tree itself (it parses a row it cannot decide from
        // texts); alone with a model that does, the run reads values.
        .filter: { try RowReadPlanTests.plan(convert: "{ fields: { email: author.email } }", filter: "email == 'a'") },
        .incrementalCursor: { try RowReadPlanTests.plan(incremental: true) },
        .fanOut: { try RowReadPlanTests.plan(fanOut: true) },
        .delivery: { try RowReadPlanTests.plan(toSink: false) },
    ]

    @Test func everyStageIsAccountedFor() throws {
        let declared = try Self.plan().declarations.map(\.stage)
        #expect(Set(declared) == Set(RowReadingStage.Kind.allCases) && declared.count == RowReadingStage.Kind.allCases.count)
        #expect(Set(Self.readingValues.keys) == Set(RowReadingStage.Kind.allCases))
    }

    @Test(arguments: RowReadingStage.Kind.allCases)
    func aStageThatReadsValuesMakesTheSourceParseRows(kind: RowReadingStage.Kind) throws {
        let makePlan = try #require(Self.readingValues[kind])
        let plan = try makePlan()
        #expect(!plan.form.keepsTexts && plan.textPlan == nil)
        #expect(plan.declarations.contains { $0.read == .values })
    }

    @Test func rowsNoStageReadsStayTexts() throws {
        let plan = try Self.plan()
        #expect(plan.form.keepsTexts && plan.form.members == nil && plan.textPlan == nil)
        #expect(plan.declarations.allSatisfy { $0.read == .nothing })
    }

    @Test func aModelAndAFilterReadTheirMembersFromTheTexts() throws {
        let plan = try Self.plan(convert: "{ model: bookmark }", filter: "visits > 1")
        let textPlan = try #require(plan.textPlan)
        #expect(plan.form.keepsTexts && plan.form.members == textPlan.selection)
        // The bookmark model's members are what the source looks for.
        #expect(textPlan.selection.slots[Array("entryId".utf8)] != nil && textPlan.selection.slots[Array("url".utf8)] != nil)
        let reads = Dictionary(uniqueKeysWithValues: plan.declarations.map { ($0.stage, $0.read) })
        #expect(reads[.convert] == .members && reads[.filter] == .members && reads[.delivery] == .nothing)
    }

    @Test func aFilterAloneReadsOnlyTheMembersItNames() throws {
        let plan = try Self.plan(filter: "visits > 1 and name != 'x'")
        let members = try #require(plan.form.members)
        #expect(Set(members.slots.keys.map { String(decoding: $0, as: UTF8.self) }) == ["visits", "name"])
    }

    /// One stage reading values outweighs the others' members.
    @Test func valuesWinOverMembers() throws {
        let plan = try Self.plan(convert: "{ model: bookmark }", filter: "visits > 1", incremental: true)
        #expect(!plan.form.keepsTexts && plan.textPlan == nil)
    }
}
