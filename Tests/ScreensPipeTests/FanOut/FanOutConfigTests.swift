import ScreensBus
import Testing
@testable import ScreensPipeCore
import ScreensPipe

@Suite("fan-out: pipeline file keys")
struct FanOutConfigTests {
    static let sitesAndContents = """
        name: contents
        source:
          type: liferay-headless
          server: http://127.0.0.1:9
          auth: { basic: { username: ana, password: secret } }
          path: /o/headless-delivery/v1.0/sites/${site.id}/structured-contents
          for-each:
            as: site
            list: { type: liferay-headless, path: /o/headless-admin-user/v1.0/my-user-account/sites }
          include: [site.name]
        """

    private func load(_ yaml: String) throws(ScreensPipeError) -> PipelineSpec {
        try PipelineLoader(environment: [:]).load(yaml: yaml)
    }

    private func errors(_ yaml: String) -> [String] {
        do {
            _ = try load(yaml)
            return []
        } catch {
            return error.errors.map(\.description)
        }
    }

    @Test("for-each, include and the placeholder template are decoded; the parent list inherits server and auth")
    func decodesAndInherits() throws {
        let spec = try load(Self.sitesAndContents)
        let forEach = try #require(spec.source.forEach)
        #expect(forEach.name == "site")
        #expect(forEach.list.server == .url("http://127.0.0.1:9"))
        #expect(forEach.list.auth == spec.source.auth)
        #expect(spec.source.include.map(\.description) == ["site.name"])
        #expect(spec.source.fansOut)
        #expect(spec.source.visibleParentNames == ["site"])
        let path = try #require(spec.source.type.settings(as: HeadlessSourceSpec.self)?.path)
        #expect(path == "/o/headless-delivery/v1.0/sites/${site.id}/structured-contents")
    }

    @Test("a placeholder naming no declared parent is an error at its position")
    func undeclaredPlaceholder() {
        let yaml = Self.sitesAndContents.replacingOccurrences(of: "${site.id}", with: "${folder.id}")
        let messages = errors(yaml)
        #expect(messages.contains { $0.contains("'${folder.id}' names no parent row") && $0.contains("<string>:6:") }, "\(messages)")
    }

    @Test("a placeholder in the parent list naming its own child's name is an error")
    func placeholderOutOfScope() {
        let yaml = Self.sitesAndContents.replacingOccurrences(
            of: "path: /o/headless-admin-user/v1.0/my-user-account/sites", with: "path: \"/o/x/${site.id}\"")
        let messages = errors(yaml)
        #expect(messages.contains { $0.contains("names no parent of this source") }, "\(messages)")
    }

    @Test("include must name a field of a declared parent")
    func includeOfUnknownParent() {
        let messages = errors(Self.sitesAndContents.replacingOccurrences(of: "include: [site.name]", with: "include: [folder.name, site]"))
        #expect(messages.filter { $0.contains("must name a parent field") }.count == 2, "\(messages)")
    }

    @Test("as must be a plain name and may not repeat a parent's")
    func asNames() {
        #expect(errors(Self.sitesAndContents.replacingOccurrences(of: "as: site", with: "as: \"si te\"")).contains { $0.contains("plain name") })
        let nested = """
            source:
              type: liferay-headless
              server: http://127.0.0.1:9
              path: /o/a/${site.id}
              for-each:
                as: site
                list:
                  type: liferay-headless
                  path: /o/b/${site.id}
                  for-each: { as: site, list: { type: liferay-headless, path: /o/c } }
            """
        #expect(errors(nested).contains { $0.contains("already the name of a parent") })
    }

    @Test("recursive takes key and param, and is refused on a file source")
    func recursion() throws {
        let tree = """
            source:
              type: liferay-jsonws
              server: http://127.0.0.1:9
              rows: { service: /bookmarks.bookmarksfolder/get-folders, params: { groupId: 20143, parentFolderId: 0 } }
              recursive: { key: folderId, param: parentFolderId, max-depth: 3 }
            """
        let spec = try load(tree)
        #expect(spec.source.recursive == RecursionSpec(key: folderId, param: "parentFolderId", maxDepth: 3))
        let file = """
            source:
              type: file
              path: rows.json
              recursive: { key: id, param: parent }
            """
        #expect(errors(file).contains { $0.contains("'recursive' needs a source that takes parameters") })
        #expect(errors(tree.replacingOccurrences(of: "max-depth: 3", with: "max-depth: 0")).count == 1)
    }

    private var folderId: String { "folderId" }

    @Test("concurrency is only for the outermost for-each")
    func concurrencyOnInnerList() {
        let yaml = """
            source:
              type: liferay-headless
              server: http://127.0.0.1:9
              path: /o/a/${folder.id}
              for-each:
                as: folder
                list:
                  type: liferay-headless
                  path: /o/b/${site.id}
                  for-each: { as: site, concurrency: 2, list: { type: liferay-headless, path: /o/c } }
            """
        #expect(errors(yaml).contains { $0.contains("'concurrency' belongs on the outermost for-each") })
        let included = yaml.replacingOccurrences(of: "concurrency: 2, ", with: "").replacingOccurrences(
            of: "      path: /o/b/${site.id}\n", with: "      path: /o/b/${site.id}\n      include: [site.name]\n")
        #expect(errors(included).contains { $0.contains("'include' belongs on the source whose rows are written") }, "\(errors(included))")
    }

    @Test("cache.key is refused with a fan-out (every list would share one key); _parent is a field filters and sink.fields may name")
    func checkedTogether() throws {
        let withFields = Self.sitesAndContents + "\nconvert: { fields: { title: title } }\n"
        do {
            _ = try PipelineLoader(environment: [:]).loadChecked(yaml: withFields + "cache: { key: contents }\n")
            Issue.record("cache.key was accepted")
        } catch {
            #expect(error.errors.contains { $0.message.contains("cache.key names one list") }, "\(error.errors)")
        }
        let spec = try PipelineLoader(environment: [:]).loadChecked(
            yaml: withFields + "filter: { where: '_parent.site.name == \"Guest\"' }\nsink: { fields: [title, _parent.site.name] }\n")
        #expect(spec.sink.fields?.count == 2)
        do {
            _ = try PipelineLoader(environment: [:]).loadChecked(
                yaml: withFields.replacingOccurrences(of: "  include: [site.name]\n", with: "") + "sink: { fields: [_parent.site.name] }\n")
            Issue.record("_parent was accepted without include")
        } catch {
            #expect(error.errors.contains { $0.message.contains("'_parent' is not a field") }, "\(error.errors)")
        }
    }

    @Test("plan prints the fan-out tree with placeholders as written, and no secret")
    func planTree() throws {
        let plan = try RunPlan(spec: try load(Self.sitesAndContents), pages: 1).text
        #expect(plan.contains("# fan-out"))
        #expect(plan.contains("list: liferay-headless /o/headless-delivery/v1.0/sites/${site.id}/structured-contents"))
        #expect(plan.contains("for each site (at most 10000 rows, 4 lists and requests in flight) of:"))
        #expect(plan.contains("site: liferay-headless /o/headless-admin-user/v1.0/my-user-account/sites"))
        #expect(!plan.contains("secret"))
    }
}
