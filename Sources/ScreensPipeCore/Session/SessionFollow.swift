import ScreensBus

/// A session's `follow`: the list's changes pushed into the session as `run --follow` finds
/// them, by the same ``ListFollower`` (its polls, change rules, jitter, backoff and state:
/// a session that follows a list followed before goes on from its last complete poll).
struct SessionFollow: Sendable {
    /// The follower; ``stop()`` ends it.
    let follower: ListFollower
    /// Runs the follower until it is stopped or fails.
    let task: Task<Void, Never>

    /// The longest interval a session follows at.
    static let maximumInterval: Duration = .seconds(24 * 3600)

    /// Starts following `spec`'s list every `interval`: `deliver` gets each batch of
    /// changes in order, `ended` the failure that ended the follow (nil after a stop).
    static func start(
        spec: PipelineSpec, environment: PipelineEnvironment, interval: Duration,
        deliver: @escaping @Sendable ([ListChange]) -> Void, ended: @escaping @Sendable (ScreensPipeError?) -> Void
    ) -> SessionFollow {
        let follower = ListFollower(spec: spec, environment: environment, options: FollowOptions(interval: interval))
        let task = Task {
            do throws(ScreensPipeError) {
                _ = try await follower.run(output: SessionChangeOutput(deliver: deliver))
                ended(nil)
            } catch {
                ended(error)
            }
        }
        return SessionFollow(follower: follower, task: task)
    }

    /// Stops the follow: a poll under way counts for nothing; a batch being handed over is
    /// finished first.
    func stop() async {
        follower.stop()
        await task.value
    }
}

/// Hands a follow's changes to the session, in order. The session is a stream, so it
/// cannot tell which changes its client holds: a batch a crash interrupted is handed over
/// again whole after a restart, as on standard output.
struct SessionChangeOutput: ChangeOutput {
    let deliver: @Sendable ([ListChange]) -> Void

    func lastSequence() async throws(ScreensPipeError) -> Int64? { nil }

    func write(_ changes: [ListChange]) async throws(ScreensPipeError) { deliver(changes) }
}

extension SessionRequest {
    /// `follow`'s `every`: an interval such as `"30s"`, from 100 ms to 24 h.
    static func followInterval(in object: JSONObject) throws(SessionCommandError) -> Duration {
        guard let value = object["every"] else {
            throw SessionCommandError(message: "the follow command needs \"every\", an interval such as \"30s\"")
        }
        guard let text = value.stringValue, let interval = ConfigUnits.duration(text),
            interval >= FollowOptions.minimumInterval, interval <= SessionFollow.maximumInterval
        else {
            throw SessionCommandError(message: "\"every\" must be an interval from 100ms to 24h such as \"30s\" or \"5m\", found \(String(value.jsonString.prefix(64)))")
        }
        return interval
    }
}
