import ScreensBus

/// What one stage of a run reads of each row.
enum RowRead: Sendable, Equatable {
    /// Nothing: rows pass the stage as they arrived.
    case nothing
    /// Some of a row's members, which the stage can read from the row's text
    /// (``RowTextPlan``): no tree of the row is built.
    case members
    /// The row's values: each row is parsed into a tree.
    case values
}

/// Every stage of a run that could read rows, each declaring what it reads (``read``).
///
/// A new stage is a new case here, and the `switch` in ``read`` does not compile until it says
/// what the stage reads: no stage can be skipped on the path where rows stay texts because
/// its author did not know that path exists. ``RowReadPlan`` derives the run's plan from these
/// declarations alone.
enum RowReadingStage: Sendable {
    /// `convert`: a model or a `fields:` mapping (none: `RowConverter.isIdentity`).
    case convert(RowConverter)
    /// `filter.where`.
    case filter(RowFilter?)
    /// The cursor of an `incremental:` pipeline, which compares each row's cursor field.
    case incrementalCursor(present: Bool)
    /// A `for-each` or `recursive` source: parent rows are read for the child lists'
    /// parameters, and child rows carry the parent's `include`d fields.
    case fanOut(present: Bool)
    /// What the rows are delivered to: a sink (a run), or a session's subscribers, which
    /// receive each shown row's values.
    case delivery(toSink: Bool)

    /// The stages by name, for a test that each one is accounted for.
    enum Kind: CaseIterable, Sendable {
        case convert, filter, incrementalCursor, fanOut, delivery
    }

    var kind: Kind {
        switch self {
        case .convert: .convert
        case .filter: .filter
        case .incrementalCursor: .incrementalCursor
        case .fanOut: .fanOut
        case .delivery: .delivery
        }
    }

    /// What this stage reads of each row.
    var read: RowRead {
        switch self {
        case .convert(let converter):
            guard !converter.isIdentity else { return .nothing }
            return converter.memberModel == nil ? .values : .members
        case .filter(let filter):
            // The members the expression names; a row it cannot decide from their texts
            // is parsed by the plan itself (``MemberTextPredicate``).
            return filter == nil ? .nothing : .members
        case .incrementalCursor(let present):
            return present ? .values : .nothing
        case .fanOut(let present):
            return present ? .values : .nothing
        case .delivery(let toSink):
            // Sinks write a kept text as it is and parse a row only when they read its
            // values (``FetchedPage/rowsAreTexts``); a session shows values.
            return toSink ? .nothing : .values
        }
    }
}

/// How a source hands a page's rows to the run: the one decision ``RowReadPlan`` passes to
/// the source's builder, its cache and the file reader.
enum RowForm: Sendable {
    /// Each row parsed into a tree.
    case values
    /// Each row kept as its text, checked but not parsed until something reads its values;
    /// with `members`, the source also finds those members of each row as it checks it.
    case texts(members: JSONMemberSelection?)

    /// Whether rows are kept as texts.
    var keepsTexts: Bool {
        if case .texts = self { return true }
        return false
    }

    /// The members a source finds in each row as it checks the rows, if any.
    var members: JSONMemberSelection? {
        if case .texts(let members) = self { return members }
        return nil
    }
}

/// How a run reads its rows, derived from what each of its stages declares
/// (``RowReadingStage/read``):
///
/// - every stage reads nothing: rows stay the texts they arrived as, and are written as such;
/// - some read members, none values: the convert and filter stages run on the rows' texts
///   (``RowTextPlan``), and the source finds those members as it checks each row;
/// - any stage reads values: every row is parsed.
struct RowReadPlan: Sendable {
    /// What the source hands over.
    let form: RowForm
    /// The convert and filter stages over rows kept as texts; nil when no stage reads
    /// members or rows are parsed.
    let textPlan: RowTextPlan?
    /// What each stage declared, in the run's order.
    let declarations: [(stage: RowReadingStage.Kind, read: RowRead)]

    /// The plan of a run: a parameter per stage, so that a new stage is passed by every
    /// caller (and ``RowReadPlanTests`` checks that each ``RowReadingStage/Kind`` is).
    init(converter: RowConverter, filter: RowFilter?, incrementalCursor: Bool, fanOut: Bool, deliversToSink: Bool) {
        self.init(stages: [
            .convert(converter), .filter(filter), .incrementalCursor(present: incrementalCursor), .fanOut(present: fanOut),
            .delivery(toSink: deliversToSink),
        ])
    }

    /// The plan for a run made of `stages`; the convert and filter among them are the ones
    /// a text plan is built for.
    init(stages: [RowReadingStage]) {
        declarations = stages.map { ($0.kind, $0.read) }
        let reads = declarations.map(\.read)
        guard !reads.contains(.values) else {
            (form, textPlan) = (.values, nil)
            return
        }
        guard reads.contains(.members) else {
            (form, textPlan) = (.texts(members: nil), nil)
            return
        }
        var converter = RowConverter.identity
        var filter: RowFilter?
        for stage in stages {
            switch stage {
            case .convert(let stageConverter): converter = stageConverter
            case .filter(let stageFilter): filter = stageFilter
            case .incrementalCursor, .fanOut, .delivery: continue
            }
        }
        // Some stage reads members, so there is a convert or a filter to plan: a plan exists.
        guard let plan = RowTextPlan(converter: converter, filter: filter) else {
            (form, textPlan) = (.values, nil)
            return
        }
        (form, textPlan) = (.texts(members: plan.selection), plan)
    }
}
