import ScreensBus

/// `follow:`: how `run --follow` (and ``ListFollower``) treats the list beyond its polls.
/// A `run` without `--follow` ignores it.
public struct FollowSpec: Sendable, Hashable {
    /// `sweep-every`: when the key sweep of a list with `incremental:` runs; nil: never, and
    /// such a follow finds no deletions (its cursor polls read only changed rows).
    public var sweepEvery: SweepSchedule?
    /// `sweep-fields`: the query parameter of a `rest` source that narrows its rows to the
    /// fields it names (comma-separated), sent with the key fields by the sweep; nil: the
    /// sweep reads whole rows. A headless source always gets `fields`.
    public var sweepFields: String?
    /// Where the section is, for errors found later.
    public var location: SourceLocation?

    /// A follow section; every part optional.
    public init(sweepEvery: SweepSchedule? = nil, sweepFields: String? = nil, location: SourceLocation? = nil) {
        self.sweepEvery = sweepEvery
        self.sweepFields = sweepFields
        self.location = location
    }

    /// The keys `follow:` accepts.
    static let keys = ["sweep-every", "sweep-fields"]
}

/// When a key sweep runs: every Nth complete poll, or once a time has passed since the last.
public enum SweepSchedule: Sendable, Hashable {
    /// Every `n`th poll (a number in the file: `sweep-every: 10`).
    case polls(Int)
    /// The first poll at least this long after the last complete sweep (`sweep-every: 10m`).
    case interval(Duration)

    /// The longest interval `sweep-every` takes.
    static let maximumInterval: Duration = .seconds(7 * 24 * 3600)
    /// The most polls `sweep-every` takes.
    static let maximumPolls = 1_000_000
}

extension FollowSpec {
    /// The section as `plan` shows it.
    var describedMembers: [(String, YAMLTextWriter.Value)] {
        var members: [(String, YAMLTextWriter.Value)] = []
        switch sweepEvery {
        case .polls(let count)?: members.append(("sweep-every", .raw("\(count)")))
        case .interval(let duration)?: members.append(("sweep-every", .raw(ConfigUnitText.duration(duration))))
        case nil: break
        }
        if let sweepFields { members.append(("sweep-fields", .string(sweepFields))) }
        return members
    }
}

extension SpecDecoder {
    /// `follow: { sweep-every, sweep-fields }`. A sweep finds the deletions a cursor cannot
    /// see, so it needs `incremental:` (a list without one is read whole at every poll and
    /// finds them anyway); `sweep-fields` names a parameter of a `rest` source only.
    func decodeFollow(_ section: Section, incremental: Bool, source: SourceSpec?) -> FollowSpec {
        section.checkKeys(FollowSpec.keys)
        var spec = FollowSpec(location: section.location)
        if let node = section["sweep-every"] {
            if case .scalar(let scalar) = node, Self.isInteger(scalar.resolved) {
                spec.sweepEvery = context.int(node, key: "sweep-every", atLeast: 1, atMost: SweepSchedule.maximumPolls).map(SweepSchedule.polls)
            } else if let duration = context.duration(node, key: "sweep-every", atMost: SweepSchedule.maximumInterval) {
                spec.sweepEvery = .interval(duration)
            }
            if !incremental {
                context.fail(
                    "'follow.sweep-every' needs 'incremental:': a list without a cursor is read whole at every poll, which finds its deletions without a sweep",
                    at: node.location)
            }
        }
        if let node = section["sweep-fields"], let name = context.nonEmptyString(node, key: "sweep-fields") {
            if let source, !(source.type.settings is RESTSourceSpec) {
                context.fail(
                    "'follow.sweep-fields' is for a 'rest' source; a liferay-headless sweep always sends 'fields', and a JSON-WS list call has no field selection",
                    at: node.location)
            } else if section["sweep-every"] == nil {
                context.fail("'follow.sweep-fields' names what the sweep sends; set 'sweep-every' to run one", at: node.location)
            } else {
                spec.sweepFields = name
            }
        }
        return spec
    }

    private static func isInteger(_ scalar: ResolvedScalar) -> Bool {
        switch scalar {
        case .int, .bigInteger: true
        default: false
        }
    }
}
