import ArgumentParser
import Foundation
import ScreensPipe

/// `run --follow [INTERVAL]`: the pipeline's list as a stream of changes, until a signal.
struct FollowRunner {
    /// The interval `--follow` alone stands for.
    static let defaultInterval = "30s"

    let spec: PipelineSpec
    let environment: PipelineEnvironment
    let options: FollowOptions
    let quiet: Bool
    /// Writes `--metrics-file` (after each poll, and `final`ly) and `--trace` (`final`ly).
    var writeReports: (@Sendable (_ final: Bool) -> Void)?

    init(spec: PipelineSpec, environment: PipelineEnvironment, options: FollowOptions, quiet: Bool) {
        self.spec = spec
        self.environment = environment
        self.options = options
        self.quiet = quiet
    }

    /// `--follow` may stand alone (`run --follow FILE`): ArgumentParser options need a value,
    /// so a `--follow` of `run` not followed by a duration gets the default one.
    static func normalized(_ arguments: [String]) -> [String] {
        guard arguments.first == "run" else { return arguments }
        var result: [String] = []
        for (index, argument) in arguments.enumerated() {
            if argument == "--" {
                result.append(contentsOf: arguments[index...])
                break
            }
            result.append(argument)
            guard argument == "--follow" else { continue }
            let next = arguments.indices.contains(index + 1) ? arguments[index + 1] : nil
            if next.map({ $0.hasPrefix("-") || ConfigUnits.duration($0) == nil }) ?? true { result.append(defaultInterval) }
        }
        return result
    }

    /// Follows until the first SIGINT, SIGTERM or SIGHUP, then ends with the signal's status
    /// (130, 143, 129) once the last complete poll's changes are written and committed; a
    /// second signal exits at once (the state stays consistent: see ``ListFollower``).
    func run(interrupts: InterruptWatcher) async throws {
        let output: any ChangeOutput
        var options = self.options
        var closable: (any ClosableChangeOutput)?
        // `--events` (or `sink.format: events`): each change as a `changed` event line.
        let eventsOf = spec.sink.format == .events ? spec.name : nil
        switch spec.sink.destination {
        case .stdout: output = ChangeLinesOutput.standardOutput(eventsOf: eventsOf)
        case .file(let path):
            do throws(ScreensPipeError) {
                output = try ChangeLinesOutput.appending(to: path, eventsOf: eventsOf)
            } catch {
                Terminal.error(error.description)
                throw ExitCode(error.exitCode)
            }
        case .registered(let sink):
            // A sink that applies changes (postgres): keyed as the sink keys its rows.
            guard let changes = sink.configuration as? any ChangeSinkConfiguration else {
                Terminal.error("--follow writes change lines to standard output or a file (-o FILE), or applies them to a postgres sink; the \(sink.typeName) sink cannot take them")
                throw ExitCode(2)
            }
            if let key = options.keyFields, key != changes.changeKeyFields {
                Terminal.error("--key \(key.joined(separator: ",")) is not the sink's key (\(changes.changeKeyFields.joined(separator: ","))): a followed sink is keyed as it keys its rows")
                throw ExitCode(2)
            }
            options.keyFields = changes.changeKeyFields
            do throws(ScreensPipeError) {
                let opened = try await changes.openChangeOutput(follower: try ListFollower.stateKey(of: spec).description, environment: environment.storageVariables)
                closable = opened
                output = opened
            } catch {
                Terminal.error(error.description)
                throw ExitCode(error.exitCode)
            }
        case .discard:
            Terminal.error("--follow writes change lines to standard output or a file (-o FILE)")
            throw ExitCode(2)
        }
        let follower = ListFollower(spec: spec, environment: environment, options: options)
        interrupts.handle { signal, count in
            if count == 1 { follower.stop(signal: signal.name) } else { _exit(signal.exitCode) }
        }
        let quiet = self.quiet
        let writeReports = self.writeReports
        defer { writeReports?(true) }
        let summary: ListFollower.Summary
        do throws(ScreensPipeError) {
            summary = try await follower.run(output: output) { report in
                if case .failed(let error, let wait) = report, !quiet {
                    Terminal.warning("poll failed (next in \(Self.seconds(wait))): \(error.description)")
                }
                writeReports?(false)
            }
        } catch {
            interrupts.stop()
            await closable?.close()
            // A closed stdout (`| head`) ends the follow quietly, as it ends a run.
            if error.code == .cancelled { return }
            Terminal.error(error.description)
            throw ExitCode(error.exitCode)
        }
        interrupts.stop()
        await closable?.close()
        if !quiet {
            let counts = ChangeKind.allCases.map { "\(summary.changes[$0, default: 0]) \($0.rawValue)" }.joined(separator: ", ")
            Terminal.note("screens-pipe: followed \(spec.name) for \(summary.polls) polls: \(counts)")
        }
        if let signal = interrupts.received { throw ExitCode(signal.exitCode) }
    }

    private static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.1fs", Double(seconds) + Double(attoseconds) / 1e18)
    }
}
