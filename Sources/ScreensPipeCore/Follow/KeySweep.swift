internal import Foundation
import ScreensBus

/// The key sweep of a followed list with `incremental:` (`follow: { sweep-every }`): a cursor
/// poll reads only the rows changed since the last one, so it never sees a row that is gone;
/// the sweep reads the whole list's keys, and the keys of the snapshot it no longer finds
/// are deleted (docs/architecture.md, "Following a list").
///
/// - It asks for keys only where the protocol can: a headless source gets `fields=` the key
///   fields (what Liferay's headless APIs honour, learn.liferay.com "API Query Parameters"),
///   a `rest` source its `follow.sweep-fields` parameter; a JSON-WS list call has no field
///   selection, so its rows come whole.
/// - It runs neither the pipeline's `filter:` nor, beyond the key, its `convert:`: a filter on
///   key-only rows would drop them all and make every row look deleted. A filter is not
///   needed either: the sweep only looks for the snapshot's keys among the list's, and a
///   row that exists is found whatever a filter would say of it (keys the sweep finds that the
///   snapshot lacks are ignored: filtered out, or added since the poll, which the next poll
///   reads). The key is read as the follow reads it: with a `convert.fields` mapping, the
///   sweep converts with the key fields' mappings only (and asks for their source members);
///   with a `convert.model`, which reads whole rows, it converts whole rows.
/// - Only a complete sweep counts: one that fails or ends short deletes nothing.
/// - A key one sweep misses is *missing*; it is deleted when the next sweep misses it too (and
///   forgotten as missing when a poll or sweep reads it), for the reason a list without a
///   cursor waits for a second read (``ChangeDetection``): a row deleted while offset pages
///   are read moves the rows behind it back, and one of them can slip past a page boundary.
///   While a key is missing, the next poll sweeps, whatever the schedule.
enum KeySweep {
    /// Whether a sweep follows the poll that brought `state`.
    static func isDue(_ schedule: SweepSchedule, state: FollowState, now: Date) -> Bool {
        guard state.snapshot.count > 0 else { return false }  // nothing that could be deleted
        if !state.snapshot.missing.isEmpty { return true }
        switch schedule {
        case .polls(let count):
            return state.polls - state.sweptAtPoll >= Int64(count)
        case .interval(let interval):
            guard let sweptAt = state.sweptAt else { return true }
            let elapsed = now.timeIntervalSince1970 * 1000 - Double(sweptAt)
            let (seconds, attoseconds) = interval.components
            return elapsed >= Double(seconds) * 1000 + Double(attoseconds) / 1e15
        }
    }

    /// The pipeline a sweep of `spec`'s list runs: no cursor, filter, limit or cache; a convert
    /// reduced to the key; the source narrowed to the key fields where it can be.
    static func pipeline(sweeping spec: PipelineSpec, keyFields: [String]) throws(ScreensPipeError) -> PipelineSpec {
        var sweep = spec
        sweep.incremental = nil
        sweep.filter = nil
        sweep.cache = nil
        sweep.sink = SinkSpec(destination: .discard)
        // The members of the raw row the key is read from; nil: the whole row.
        var members: [String]? = try keyFields.map { field throws(ScreensPipeError) in try rootMember(of: field) }
        if let convert = spec.convert {
            if convert.model != nil {
                members = nil
            } else if let mappings = convert.fields {
                var kept: [FieldMapping] = []
                for field in keyFields {
                    guard let mapping = mappings.first(where: { $0.name == field }) else {
                        throw ScreensPipeError.configuration(
                            "the key field '\(field)' is not one of convert.fields, so the key sweep of \(spec.name) cannot read it; name the key with --key")
                    }
                    kept.append(mapping)
                }
                sweep.convert?.fields = kept
                members = try kept.map { mapping throws(ScreensPipeError) in try rootMember(of: mapping.from) }
            }
        }
        sweep.source.type = narrowed(spec.source.type, to: members, sweepFields: spec.follow?.sweepFields)
        return sweep
    }

    /// The first member of a path (`creator` of `creator.id`): what a `fields` parameter
    /// surely keeps the rest of.
    private static func rootMember(of path: String) throws(ScreensPipeError) -> String {
        guard let parsed = try? FieldPath(path), case .key(let member)? = parsed.components.first else {
            throw ScreensPipeError.configuration("the key field '\(path)' does not start with a member name, so the key sweep cannot ask for it")
        }
        return member
    }

    private static func narrowed(_ type: SourceTypeSpec, to members: [String]?, sweepFields: String?) -> SourceTypeSpec {
        var unique: [String] = []
        for member in members ?? [] where !unique.contains(member) { unique.append(member) }
        if var headless = type.settings(as: HeadlessSourceSpec.self) {
            guard members != nil else { return type }
            headless.query.removeAll { $0.name == "fields" || $0.name == "restrictFields" }
            headless.query.append(QueryParameter(name: "fields", value: unique.joined(separator: ",")))
            return .liferayHeadless(headless)
        }
        if var rest = type.settings(as: RESTSourceSpec.self) {
            // No cursor in a sweep: a parameter that would carry it is left out, as on a first run.
            rest.query.removeAll { $0.value.contains(IncrementalPushDown.placeholder) }
            if let sweepFields, members != nil {
                rest.query.removeAll { $0.name == sweepFields }
                rest.query.append(QueryParameter(name: sweepFields, value: unique.joined(separator: ",")))
            }
            return .rest(rest)
        }
        return type
    }
}

extension ChangeDetection {
    /// Compares a complete sweep's `keys` with the snapshot (in the snapshot's order): a key
    /// found stays (and is no longer missing), a key not found becomes missing, a key not
    /// found that was missing already is `deleted`. Keys only the sweep has are not the
    /// follow's to report.
    static func sweep(_ keys: Set<String>, with previous: ListSnapshot, keyFields: [String], after sequence: Int64) -> Outcome {
        var next = ListSnapshot()
        var changes: [ListChange] = []
        var number = sequence
        for key in previous.keys {
            let digest = previous.digest(of: key) ?? ""
            if keys.contains(key) {
                next.set(key, digest: digest)
            } else if previous.missing.contains(key) {
                number += 1
                changes.append(ListChange(kind: .deleted, sequence: number, key: keyObject(key, fields: keyFields), itemText: nil))
            } else {
                next.set(key, digest: digest, missing: true)
            }
        }
        return Outcome(changes: changes, snapshot: next)
    }
}
