import ArgumentParser
import ScreensPipe

extension RunCommand {
    /// `--follow` and `--key`, checked with the options they cannot go with.
    func validateFollow() throws {
        guard let follow else {
            if key != nil { throw ValidationError("--key names the key of a followed list: use it with --follow") }
            return
        }
        guard let interval = ConfigUnits.duration(follow), interval >= FollowOptions.minimumInterval else {
            throw ValidationError("--follow takes an interval of at least 100ms (30s, 5m, 1h), found '\(follow)'")
        }
        _ = interval
        for (given, name) in [(limit != nil, "--limit"), (resumeOptions.resume, "--resume"), (fullRefresh, "--full-refresh"), (fields != nil, "--fields")] where given {
            throw ValidationError("--follow and \(name) cannot be used together")
        }
        if let format, format != .items, format != .events {
            throw ValidationError("--follow writes change lines (or, with --events, changed events): --format \(format.rawValue) cannot be used with it")
        }
        if let key, (try? FieldPath.list(key)) == nil { throw ValidationError("--key: not a list of field paths: '\(key)'") }
    }

    /// The follow's options; nil without `--follow`.
    func followOptions() throws -> FollowOptions? {
        guard let follow, let interval = ConfigUnits.duration(follow) else { return nil }
        let keyFields = try key.map { try FieldPath.list($0).map(\.description) }
        return FollowOptions(interval: interval, keyFields: keyFields)
    }
}
