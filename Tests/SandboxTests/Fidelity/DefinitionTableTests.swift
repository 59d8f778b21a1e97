@testable import Sandbox
import Testing

/// The definition tables themselves: every entry names where it was read, and the parts of
/// the portal's rules that need no server (key naming, hints, the context in messages).
@Suite("Fidelity: the definition tables and the action-lookup rule")
struct DefinitionTableTests {
    static func isCommit(_ text: String) -> Bool {
        text.count == 40 && text.allSatisfy { $0.isHexDigit && !$0.isUppercase }
    }

    @Test("every signature and model names at least one source with a repository, a path and a 40-hex commit")
    func provenance() {
        let sources = JSONWSSignatures.all.flatMap(\.sources)
            + ModelDefinitions.all.map(\.source)
            + [DefinitionSource.actionMatching, .parameterNaming, .errorStatus, .errorBody, .objectParameters]
        #expect(JSONWSSignatures.all.allSatisfy { !$0.sources.isEmpty })
        for source in sources {
            #expect(source.repository.split(separator: "/").count == 2, "\(source)")
            #expect(!source.path.isEmpty && !source.path.contains("..."), "\(source)")
            #expect(Self.isCommit(source.commit), "\(source)")
        }
    }

    @Test("no version lists the same overload twice, and every version serves every served path")
    func noDuplicateOverloads() {
        for version in LiferayVersion.allCases {
            let keys = JSONWSSignatures.signatures(for: version).map { "\($0.path)(\($0.parameterNames.map { $0.lowercased() }.sorted()))" }
            #expect(Set(keys).count == keys.count, "\(version)")
            let paths = Set(JSONWSSignatures.signatures(for: version).map(\.path))
            for served in JSONWSServices.actions.keys {
                #expect(paths.contains(served), "\(version) has no signature for the served \(served)")
            }
        }
    }

    @Test("keys name parameters as JSONWebServiceActionParametersMap reads them")
    func keyNaming() {
        #expect(JSONWSActionMatcher.namedParameter("groupId") == "groupId")
        #expect(JSONWSActionMatcher.namedParameter("-obc") == "obc")
        #expect(JSONWSActionMatcher.namedParameter("+obc") == "obc")
        #expect(JSONWSActionMatcher.namedParameter("+obc:com.x.Comparator") == "obc")
        #expect(JSONWSActionMatcher.namedParameter("obc:com.x.Comparator") == "obc")
        #expect(JSONWSActionMatcher.namedParameter("entryQuery.groupIds") == nil)
        #expect(JSONWSActionMatcher.namedParameter("+entryQuery.groupIds") == nil)
        #expect(JSONWSActionMatcher.parameterNames(["a", "b.c"]) == ["a", "serviceContext"])
    }

    @Test("a .N hint, the context of the no-action message")
    func hintsAndContexts() {
        #expect(JSONWSActionMatcher.splitHint("/bookmarks.bookmarksentry/get-entries.4") == ("/bookmarks.bookmarksentry/get-entries", 4))
        #expect(JSONWSActionMatcher.splitHint("/bookmarks.bookmarksentry/get-entries") == ("/bookmarks.bookmarksentry/get-entries", nil))
        #expect(JSONWSActionMatcher.splitHint("/assetentry/get-entries-count.1") == ("/assetentry/get-entries-count", 1))
        #expect(JSONWSActionMatcher.splitHint("/a.b/get-x.y") == ("/a.b/get-x.y", nil))
        #expect(JSONWSActionMatcher.contextName(of: "/bookmarks.bookmarksentry/get-entries") == "bookmarks")
        #expect(JSONWSActionMatcher.contextName(of: "/screens.screensddlrecord/get-ddl-records") == "screens")
        #expect(JSONWSActionMatcher.contextName(of: "/assetentry/get-entries-count") == "null")
        #expect(JSONWSActionMatcher.contextName(of: "nonsense") == "null")
    }

    @Test("ties go to the first signature in the portal's order; without a hint a signature needs every parameter")
    func matching() {
        let matcher = JSONWSActionMatcher(version: .v7_2)
        let names: Set<String> = ["groupId", "folderId", "locale", "start", "end", "obc", "serviceContext"]
        #expect(matcher.match(path: "/journal.journalarticle/get-articles", parameterNames: names)?.parameterNames
            == ["groupId", "folderId", "locale", "start", "end", "obc"])
        #expect(matcher.match(path: "/journal.journalarticle/get-articles", parameterNames: ["groupId", "start"]) == nil)
        #expect(matcher.match(path: "/journal.journalarticle/get-articles.5", parameterNames: ["groupId", "start"])?.parameterNames
            == ["groupId", "folderId", "start", "end", "obc"])
        #expect(matcher.match(path: "/journal.journalarticle/get-articles.9", parameterNames: names) == nil)
    }
}
