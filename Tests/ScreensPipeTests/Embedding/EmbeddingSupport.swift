import Foundation
import Sandbox
import ScreensBus
import ScreensPipe

/// What the embedding tests share: paths, an isolated cache, and a delegate that records.
enum Embedding {
    /// The package root (three levels above this file's folder).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static func path(_ relative: String) -> String {
        packageRoot.appendingPathComponent(relative).path
    }

    /// Variables that keep the cache of each test in its own temporary directory.
    static func variables() -> [String: String] {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("screens-pipe-embedding-\(UUID().uuidString)").path
        return ["SCREENS_PIPE_CACHE_DIR": directory]
    }

    /// An environment with the bundled sandbox and an isolated cache.
    static func environment(sandbox: SandboxConfiguration = SandboxConfiguration()) -> PipelineEnvironment {
        PipelineEnvironment(variables: variables(), sandbox: BundledSandbox(configuration: sandbox))
    }

    /// A pipeline over the generated bookmarks folder of the sandbox, one small page at a
    /// time, so a run has many pages to cancel in the middle of.
    static let generatedListYAML = """
        name: generated
        source:
          type: liferay-jsonws
          server: sandbox
          auth:
            basic:
              username: test@liferay.com
              password: test
          rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 1000000 } }
          count: { service: /bookmarks.bookmarksentry/get-entries-count, params: { groupId: 20143, folderId: 1000000 } }
          pagination: { first-page-size: 10, page-size: 10, prefetch: 1 }
        """
}

/// A delegate that keeps every event it is given, in order.
final class RecordingDelegate: ListDelegate {
    private let recorder = EventRecorder()

    var events: [PipelineEvent] {
        get async { await recorder.events }
    }

    func onRunStarted(_ started: RunStarted) async { await recorder.append(.started(started)) }
    func onListResponse(_ response: ListResponse) async { await recorder.append(.response(response)) }
    func onListError(_ error: ListError) async { await recorder.append(.error(error)) }
    func onSelected(_ row: SelectedRow) async { await recorder.append(.selected(row)) }
    func onRunFinished(_ finished: RunFinished) async { await recorder.append(.finished(finished)) }
    func onCustomEvent(_ event: CustomEvent) async { await recorder.append(.custom(event)) }
}

actor EventRecorder {
    private(set) var events: [PipelineEvent] = []

    func append(_ event: PipelineEvent) { events.append(event) }
}

extension PipelineEvent {
    var isSelected: Bool {
        if case .selected = self { return true }
        return false
    }

    var isResponse: Bool {
        if case .response = self { return true }
        return false
    }
}
