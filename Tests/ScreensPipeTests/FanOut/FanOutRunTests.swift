import Foundation
import Sandbox
import ScreensBus
import Testing
@testable import ScreensPipeCore
import ScreensPipe

/// Fan-out runs through the library against the in-process sandbox portal over loopback.
@Suite("fan-out: runs against the sandbox")
struct FanOutRunTests {
    static func contentsYAML(concurrency: Int, policy: String = "remote-only") -> String {
        """
        name: contents
        source:
          type: liferay-headless
          server: sandbox
          auth: { basic: { username: test@liferay.com, password: test } }
          path: /o/headless-delivery/v1.0/sites/${site.id}/structured-contents
          query: { flatten: "true" }
          pagination: { page-size: 10, prefetch: 2 }
          for-each:
            as: site
            concurrency: \(concurrency)
            list: { type: liferay-headless, path: /o/headless-admin-user/v1.0/my-user-account/sites, pagination: { page-size: 1 } }
          include: [site.name]
        cache:
          policy: \(policy)
        convert:
          fields: { id: id, title: title }
        """
    }

    struct Run {
        var events: [PipelineEvent]
        var summary: RunSummary
        var items: [JSONValue] {
            events.compactMap { if case .selected(let row) = $0 { row.item } else { nil } }
        }
        var errors: [ListError] {
            events.compactMap { if case .error(let error) = $0 { error } else { nil } }
        }
    }

    static func run(_ yaml: String, variables: [String: String], sandbox: SandboxConfiguration = SandboxConfiguration()) async throws -> Run {
        var spec = try PipelineLoader(environment: variables).load(yaml: yaml)
        spec.sink = SinkSpec(destination: .discard)
        let pipeline = Pipeline(spec: spec, environment: PipelineEnvironment(variables: variables, sandbox: BundledSandbox(configuration: sandbox)))
        let subscription = pipeline.subscribe()
        async let summary = pipeline.runReturningFailures()
        var events: [PipelineEvent] = []
        for await event in subscription { events.append(event) }
        return Run(events: events, summary: try await summary)
    }

    static func cacheVariables() -> [String: String] {
        ["SCREENS_PIPE_CACHE_DIR": FileManager.default.temporaryDirectory.appendingPathComponent("fanout-\(UUID().uuidString)").path]
    }

    @Test("children loaded four at once are delivered in parent order, each child's rows in order, as with one at a time")
    func orderUnderConcurrency() async throws {
        // Latency makes every request slow, so the sites' lists (3, 1 and 0 pages long)
        // finish out of order when they run together.
        let slow = SandboxConfiguration(faults: FaultPlan(latency: .milliseconds(30)))
        let sequential = try await Self.run(Self.contentsYAML(concurrency: 1), variables: Self.cacheVariables(), sandbox: slow)
        let concurrent = try await Self.run(Self.contentsYAML(concurrency: 4), variables: Self.cacheVariables(), sandbox: slow)
        #expect(sequential.summary.succeeded && concurrent.summary.succeeded)
        #expect(concurrent.items == sequential.items)
        #expect(concurrent.items.count == 73 + 24)
        let sites = concurrent.items.compactMap { item -> String? in
            if case .object(let object) = item, case .object(let parent)? = object["_parent"], case .object(let site)? = parent["site"],
                case .string(let name)? = site["name"] { return name }
            return nil
        }
        #expect(sites.count == concurrent.items.count)
        #expect(Array(sites.prefix(73)) == Array(repeating: "Guest", count: 73))
        #expect(Array(sites.suffix(24)) == Array(repeating: "Intranet", count: 24))
        // Every response names its parent; pages of one child come in order.
        let responses = concurrent.events.compactMap { event -> ListResponse? in if case .response(let r) = event { r } else { nil } }
        #expect(responses.allSatisfy { $0.parent != nil })
        let guestPages = responses.filter { $0.parent?.jsonString.contains("\"row\":0") == true }.map(\.page)
        #expect(guestPages == Array(0..<guestPages.count))
    }

    @Test("each child list has its own cache key: a cache-only run gives every site its own rows back")
    func cacheKeysPerChild() async throws {
        let variables = Self.cacheVariables()
        let fetched = try await Self.run(Self.contentsYAML(concurrency: 3, policy: "remote-first"), variables: variables)
        let cached = try await Self.run(Self.contentsYAML(concurrency: 3, policy: "cache-only"), variables: variables)
        #expect(fetched.summary.succeeded, "\(fetched.errors)")
        #expect(cached.summary.succeeded, "\(cached.errors)")
        #expect(cached.items == fetched.items)
        let origins = Set(cached.events.compactMap { event -> PageOrigin? in if case .response(let r) = event { r.origin } else { nil } })
        #expect(origins == [.cache])
        // Distinct keys: the two sites' rows differ (one shared key would repeat one site).
        #expect(Set(fetched.items.map(\.jsonString)).count == fetched.items.count)
    }

    @Test("a limit stops every child list and ends the run with reason limit")
    func limit() async throws {
        let yaml = Self.contentsYAML(concurrency: 4) + "\nfilter: { limit: 75 }\n"
        let run = try await Self.run(yaml, variables: Self.cacheVariables())
        #expect(run.items.count == 75)
        #expect(run.summary.succeeded)
    }

    @Test("a tree whose folder contains itself is an error naming the list, not a hang, and no row is delivered twice")
    func treeCycle() async throws {
        let data = try Self.dataDirectory(extraFolders: [
            ["folderId": 20290, "groupId": 20145, "parentFolderId": 0, "name": "Loop"],
            ["folderId": 20290, "groupId": 20145, "parentFolderId": 20290, "name": "Loop again"],
        ])
        let run = try await Self.run(Self.treeYAML(maxDepth: 16), variables: Self.cacheVariables(), sandbox: SandboxConfiguration(dataDirectory: data))
        #expect(!run.summary.succeeded)
        #expect(run.items.map(\.jsonString) == [#"{"name":"Loop"}"#])
        let message = run.errors.last?.message ?? ""
        #expect(message.contains("was listed before: the tree has a cycle") && message.contains("tree 20290"), "\(message)")
    }

    @Test("a tree walks list by list, depth first, and each list's response names the keys above it")
    func treeOrder() async throws {
        let data = try Self.dataDirectory(extraFolders: [
            ["folderId": 20291, "groupId": 20145, "parentFolderId": 0, "name": "A"],
            ["folderId": 20292, "groupId": 20145, "parentFolderId": 0, "name": "B"],
            ["folderId": 20293, "groupId": 20145, "parentFolderId": 20291, "name": "A1"],
            ["folderId": 20294, "groupId": 20145, "parentFolderId": 20293, "name": "A1x"],
            ["folderId": 20295, "groupId": 20145, "parentFolderId": 20292, "name": "B1"],
        ])
        let run = try await Self.run(Self.treeYAML(maxDepth: 4), variables: Self.cacheVariables(), sandbox: SandboxConfiguration(dataDirectory: data))
        #expect(run.summary.succeeded, "\(run.errors)")
        #expect(run.items.map(\.jsonString) == ["A", "B", "A1", "A1x", "B1"].map { #"{"name":"\#($0)"}"# })
        let depthLimited = try await Self.run(
            Self.treeYAML(maxDepth: 1), variables: Self.cacheVariables(),
            sandbox: SandboxConfiguration(dataDirectory: data))
        #expect(!depthLimited.summary.succeeded)
        #expect(depthLimited.errors.last?.message.contains("deeper than recursive.max-depth (1)") == true)
    }

    @Test("hostile parent values: '/' and '..' stay inside one path segment; an object stops the run naming the parent row")
    func hostileParentValues() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fanout-parents-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let parents = directory.appendingPathComponent("parents.json")
        func yaml(_ file: URL) -> String {
            """
            name: hostile
            source:
              type: liferay-headless
              server: sandbox
              auth: { basic: { username: test@liferay.com, password: test } }
              path: /o/headless-delivery/v1.0/sites/${site.id}/structured-contents
              query: { flatten: "true" }
              retry: { attempts: 1 }
              for-each:
                as: site
                list: { type: file, path: "\(file.path)" }
            """
        }
        try Data(#"[{"id": 20144}, {"id": "../../../api/jsonws/invoke"}, {"id": 20143}]"#.utf8).write(to: parents)
        let escaped = try await Self.run(yaml(parents), variables: Self.cacheVariables())
        #expect(escaped.items.count == 24)
        let message = escaped.errors.last?.message ?? ""
        #expect(message.hasPrefix("child list of site #1 (id=../../../api/jsonws/invoke): HTTP 404"), "\(message)")
        #expect(escaped.errors.last?.request?.contains("/sites/..%2F..%2F..%2Fapi%2Fjsonws%2Finvoke/structured-contents") == true)

        let objects = directory.appendingPathComponent("objects.json")
        try Data(#"[{"id": 20144}, {"id": {"nested": [1, 2]}}]"#.utf8).write(to: objects)
        let refused = try await Self.run(yaml(objects), variables: Self.cacheVariables())
        #expect(refused.items.count == 24)
        #expect(!refused.summary.succeeded)
        #expect(refused.errors.last?.message.contains("child list of site #1") == true)
        #expect(refused.errors.last?.message.contains("the value for ${site.id} is an object, not a scalar") == true)
        #expect(refused.errors.last?.parent?.jsonString.contains(#""site":{"row":1"#) == true)

        let many = directory.appendingPathComponent("many.json")
        try Data(("[" + (0..<5).map { _ in #"{"id": 20145}"# }.joined(separator: ",") + "]").utf8).write(to: many)
        let limited = try await Self.run(
            yaml(many).replacingOccurrences(of: "as: site", with: "as: site\n    max-parents: 4"), variables: Self.cacheVariables())
        #expect(limited.items.isEmpty)
        #expect(limited.errors.last?.message.contains("has more than 4 rows (for-each.max-parents)") == true)
    }

    /// The bookmark folder tree of site 20145, each folder's name as a row.
    static func treeYAML(maxDepth: Int) -> String {
        """
        name: tree
        source:
          type: liferay-jsonws
          server: sandbox
          auth: { basic: { username: test@liferay.com, password: test } }
          rows: { service: /bookmarks.bookmarksfolder/get-folders, params: { groupId: 20145, parentFolderId: 0 } }
          count: { service: /bookmarks.bookmarksfolder/get-folders-count, params: { groupId: 20145, parentFolderId: 0 } }
          recursive: { key: folderId, param: parentFolderId, max-depth: \(maxDepth) }
        convert: { fields: { name: name } }
        """
    }

    /// A copy of the bundled portal data with `extraFolders` added to the bookmark folders.
    static func dataDirectory(extraFolders: [JSONValue]) throws -> String {
        let bundled = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/Sandbox/Data")
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("fanout-data-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: bundled, to: copy)
        let file = copy.appendingPathComponent("bookmarks-folders.json")
        guard case .array(var folders) = try JSONValue(parsing: Array(try Data(contentsOf: file))) else { throw CocoaError(.fileReadCorruptFile) }
        guard case .object(let template)? = folders.first else { throw CocoaError(.fileReadCorruptFile) }
        for extra in extraFolders {
            var folder = template
            if case .object(let fields) = extra { for (key, value) in fields { folder[key] = value } }
            folder["treePath"] = "/"
            folders.append(.object(folder))
        }
        try Data(JSONValue.array(folders).jsonString.utf8).write(to: file)
        return copy.path
    }
}

@Suite("fan-out: the in-flight budget")
struct InFlightBudgetTests {
    @Test("never more permits out than it holds, every waiter served")
    func bounded() async {
        let budget = InFlightBudget(permits: 3)
        let counter = Counter()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<40 {
                group.addTask {
                    guard await budget.acquire() else { return }
                    await counter.enter()
                    await Task.yield()
                    await counter.leave()
                    budget.release()
                }
            }
        }
        #expect(await counter.peak <= 3)
        #expect(await counter.total == 40)
    }

    @Test("a waiter whose task is cancelled gives up without a permit")
    func cancelledWaiter() async {
        let budget = InFlightBudget(permits: 1)
        #expect(await budget.acquire())
        let waiter = Task { await budget.acquire() }
        waiter.cancel()
        #expect(await waiter.value == false)
        budget.release()
        #expect(await budget.acquire())
    }

    actor Counter {
        var current = 0
        var peak = 0
        var total = 0
        func enter() {
            current += 1
            total += 1
            peak = max(peak, current)
        }
        func leave() { current -= 1 }
    }
}
