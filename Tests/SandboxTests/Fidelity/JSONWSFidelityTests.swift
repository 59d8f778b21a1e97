@testable import Sandbox
import ScreensJSON
import Testing

/// The sandbox's JSON-WS answers against Liferay's own rules: the action lookup of
/// JSONWebServiceActionsManagerImpl over the signatures in ``JSONWSSignatures``, the error
/// body of JSONFactoryImpl and the statuses of JSONWebServiceServiceAction.
@Suite("Fidelity: JSON-WS action lookup and answers")
struct JSONWSFidelityTests {
    /// A value of the right type for every parameter name the served signatures use.
    static let sampleValues: [String: [(String, JSONValue)]] = [
        "groupId": [("groupId", 20143)], "folderId": [("folderId", 0)], "parentFolderId": [("parentFolderId", 0)],
        "start": [("start", 0)], "end": [("end", 5)], "status": [("status", 0)], "locale": [("locale", "en_US")],
        "obc": [("obc", .null)], "orderByComparator": [("-orderByComparator", .null)],
        "ddlRecordSetId": [("ddlRecordSetId", 20501)], "userId": [("userId", 20139)],
        "assetEntryQuery": [
            ("+assetEntryQuery", "com.liferay.asset.kernel.service.persistence.AssetEntryQuery"),
            ("assetEntryQuery.groupIds", 20143),
        ],
        "entryQuery": [
            ("+entryQuery", "com.liferay.asset.kernel.service.persistence.AssetEntryQuery"), ("entryQuery.groupIds", 20143),
        ],
    ]

    static func command(_ path: String, _ params: [(String, JSONValue)]) -> String {
        let object = JSONObject(params)
        return JSONValue.object([path: .object(object)]).jsonString
    }

    @Test("every served signature answers 200 when a command names exactly its parameters, in every version that has it")
    func everyServedSignatureAnswers() async throws {
        for version in LiferayVersion.allCases {
            try await withSandbox(.init { $0.liferayVersion = version }) { client, _ in
                let client = client.patient
                var served = 0
                for signature in JSONWSSignatures.signatures(for: version) where JSONWSServices.actions[signature.path] != nil {
                    guard signature.parameterNames.allSatisfy({ Self.sampleValues[$0] != nil }) else { continue }
                    let params = signature.parameterNames.flatMap { Self.sampleValues[$0]! }
                    let response = try client.invoke(Self.command(signature.path, params)).expect(200)
                    #expect(response.status == 200, "\(version) \(signature)")
                    served += 1
                }
                #expect(served >= 14, "\(version): \(served) signatures checked")
            }
        }
    }

    @Test("dropping any parameter answers 404 exactly when the matcher finds no other signature")
    func droppingAParameter() async throws {
        let matcher = JSONWSActionMatcher(version: .default)
        try await withSandbox { client, _ in
            let client = client.patient
            for signature in JSONWSSignatures.signatures(for: .default) where JSONWSServices.actions[signature.path] != nil {
                guard signature.parameterNames.allSatisfy({ Self.sampleValues[$0] != nil }) else { continue }
                for dropped in signature.parameterNames {
                    let params = signature.parameterNames.filter { $0 != dropped }.flatMap { Self.sampleValues[$0]! }
                    let names = JSONWSActionMatcher.parameterNames(params.map(\.0))
                    let expected = matcher.match(path: signature.path, parameterNames: names) == nil ? 404 : 200
                    let response = try client.invoke(Self.command(signature.path, params))
                    #expect(response.response?.status == expected, "\(signature) without \(dropped)")
                }
            }
        }
    }

    /// Commands a portal refuses or accepts, per version, with the reason.
    static let cases: [(version: LiferayVersion, path: String, params: [(String, JSONValue)], status: Int, why: String)] = [
        (.v7_2, "/bookmarks.bookmarksentry/get-entries", [("groupId", 20143), ("folderId", 0)], 404,
         "no get-entries overload without start and end"),
        (.v7_2, "/screens.screensddlrecord/get-ddl-records", [("ddlRecordSetId", 20501), ("locale", "en_US"), ("start", 0), ("end", 5)], 404,
         "getDDLRecords needs obc, even null"),
        (.v7_2, "/screens.screensddlrecord/get-ddl-records", [("ddlRecordSetId", 20501), ("locale", "en_US"), ("start", 0), ("end", 5), ("-obc", "")], 200,
         "-obc names obc with a null value"),
        (.v7_2, "/screens.screensassetentry/get-asset-entries",
         [("+entryQuery", "com.liferay.asset.kernel.service.persistence.AssetEntryQuery"), ("entryQuery.groupIds", 20143), ("locale", "en_US")], 404,
         "the Screens service names its parameter assetEntryQuery"),
        (.v7_2, "/assetentry/get-entries-count", [("entryQuery.groupIds", 20143)], 404,
         "an inner entryQuery.field names no parameter by itself"),
        (.v7_2, "/assetentry/get-entries-count", [("entryQuery", ["groupIds": 20143])], 200,
         "a JSON object names the object parameter"),
        (.v7_2, "/bookmarks.bookmarksentry/get-entries-count", [("GROUPID", 20143), ("FolderId", 0)], 200,
         "parameter names compare ignoring case"),
        (.v7_2, "/bookmarks.bookmarksentry/get-entries-count", [("groupId", 20143), ("folderId", 0), ("nonsense", 1)], 200,
         "extra parameters are ignored"),
        (.v7_2, "/journal.journalarticle/get-articles", [("groupId", 20143), ("folderId", 0), ("start", 0), ("end", 5), ("obc", .null)], 200,
         "7.0-7.2: getArticles(groupId, folderId, start, end, obc)"),
        (.v7_4, "/journal.journalarticle/get-articles", [("groupId", 20143), ("folderId", 0), ("start", 0), ("end", 5), ("obc", .null)], 404,
         "7.3+ dropped the obc overload: no get-articles takes start and end without locale"),
        (.v7_4, "/journal.journalarticle/get-articles",
         [("groupId", 20143), ("folderId", 0), ("locale", "en_US"), ("start", 0), ("end", 5), ("orderByComparator", .null)], 200,
         "7.3+: getArticles(groupId, folderId, locale, start, end, orderByComparator)"),
        (.v7_0, "/journal.journalarticle/get-articles", [("groupId", 20143), ("folderId", 0), ("locale", "en_US")], 200,
         "7.0 matches getArticles(groupId, folderId): locale is an extra parameter there"),
        (.v7_4, "/journal.journalarticle/get-articles", [("groupId", 20143), ("folderId", 0)], 404,
         "7.3+ has no getArticles(groupId, folderId)"),
        (.v7_2, "/screens.screenscomment/get-comments",
         [("className", "com.liferay.journal.model.JournalArticle"), ("classPK", 40001)], 404,
         "ScreensCommentService.getComments has no overload without start and end"),
        (.v7_0, "/screens.screenscomment/get-comments",
         [("className", "com.liferay.journal.model.JournalArticle"), ("classPK", 40001), ("start", 0), ("end", 5)], 200,
         "getComments(className, classPK, start, end), the same on every 7.x"),
        (.v7_4, "/screens.screenscomment/get-comments-count",
         [("className", "com.liferay.journal.model.JournalArticle"), ("classPK", 40001)], 200,
         "getCommentsCount(className, classPK)"),
        (.v7_2, "/nope.nope/get-nothing", [], 404, "no such path"),
    ]

    @Test("commands a portal refuses get 404, those it accepts 200, per version")
    func acceptsAndRefuses() async throws {
        for version in LiferayVersion.allCases {
            let cases = Self.cases.filter { $0.version == version }
            guard !cases.isEmpty else { continue }
            try await withSandbox(.init { $0.liferayVersion = version }) { client, _ in
                let client = client.patient
                for item in cases {
                    let response = try client.invoke(Self.command(item.path, item.params))
                    #expect(response.response?.status == item.status, "\(version) \(item.path): \(item.why)")
                }
            }
        }
    }

    @Test("the overload with more named parameters wins; the others' extra parameters have no effect")
    func overloads() async throws {
        try await withSandbox { client, _ in
            let client = client.patient
            // getArticles(groupId, folderId) ignores start and end: every article of the folder.
            let all = try client.invoke(Self.command(
                "/journal.journalarticle/get-articles", [("groupId", 20143), ("folderId", 0), ("start", 0), ("end", 5)])).expect(200).json()
            #expect(all.arrayValue?.count == 60)
            let paged = try client.invoke(Self.command(
                "/journal.journalarticle/get-articles", [("groupId", 20143), ("folderId", 0), ("start", 0), ("end", 5), ("obc", .null)])).expect(200).json()
            #expect(paged.arrayValue?.count == 5)
            // A hint (.2) picks the two-parameter count even though status is named too.
            let hinted = try client.invoke(Self.command(
                "/bookmarks.bookmarksentry/get-entries-count.2", [("groupId", 20143), ("folderId", 0), ("status", 7)])).expect(200).json()
            #expect(hinted == 73)
            let withStatus = try client.invoke(Self.command(
                "/bookmarks.bookmarksentry/get-entries-count", [("groupId", 20143), ("folderId", 0), ("status", 7)])).expect(200).json()
            #expect(withStatus == 0)
        }
    }

    @Test("an unknown or unmatched action answers 404 with JSONFactoryImpl's body and NoSuchJSONWebServiceException")
    func noSuchActionBody() async throws {
        try await withSandbox { client, _ in
            let client = client.patient
            let body = try client.invoke(Self.command("/bookmarks.bookmarksentry/get-entries", [("groupId", 20143)])).expect(404).json()
            let message = "No JSON web service action with path /bookmarks.bookmarksentry/get-entries and method null for bookmarks"
            let type = "com.liferay.portal.kernel.jsonwebservice.NoSuchJSONWebServiceException"
            #expect(body == ["error": ["message": .string(message), "type": .string(type)], "exception": .string(message), "throwable": .string("\(type): \(message)")])
            let portalService = try client.invoke(Self.command("/assetentry/get-entries-count", [])).expect(404).json()
            #expect(portalService["exception"] == "No JSON web service action with path /assetentry/get-entries-count and method null for null")
            // One unmatched command fails the whole batch.
            let batch = try client.invoke("""
                [{"/bookmarks.bookmarksentry/get-entries-count":{"groupId":20143,"folderId":0}},{"/bookmarks.bookmarksentry/get-entries":{}}]
                """).expect(404).json()
            #expect(batch["error"]?["type"] == .string(type))
        }
    }

    @Test("JSON-WS rows carry every service.xml column of their model, typed as JSON-WS serializes it")
    func modelColumns() async throws {
        try await withSandbox(.init { $0.generatedRows = 3 }) { client, _ in
            let client = client.patient
            let lists: [(ModelDefinition, String, [(String, JSONValue)], String?)] = [
                (ModelDefinitions.bookmarksEntry, "/bookmarks.bookmarksentry/get-entries",
                 [("groupId", 20143), ("folderId", 0), ("start", -1), ("end", -1)], nil),
                (ModelDefinitions.bookmarksEntry, "/bookmarks.bookmarksentry/get-entries",
                 [("groupId", 20143), ("folderId", 1_000_000), ("start", -1), ("end", -1)], nil),
                (ModelDefinitions.bookmarksFolder, "/bookmarks.bookmarksfolder/get-folders", [("groupId", 20143)], nil),
                (ModelDefinitions.journalArticle, "/journal.journalarticle/get-articles", [("groupId", 20143), ("folderId", 0)], nil),
                (ModelDefinitions.ddlRecord, "/screens.screensddlrecord/get-ddl-records",
                 [("ddlRecordSetId", 20501), ("locale", "en_US"), ("start", -1), ("end", -1), ("obc", .null)], "modelAttributes"),
                (ModelDefinitions.assetEntry, "/screens.screensassetentry/get-asset-entries",
                 Self.sampleValues["assetEntryQuery"]! + [("locale", "en_US")], nil),
            ]
            for (model, path, params, nested) in lists {
                let rows = try #require(try client.invoke(Self.command(path, params)).expect(200).json().arrayValue)
                #expect(!rows.isEmpty, "\(path)")
                for row in rows {
                    let object = nested.flatMap { row[$0] } ?? row
                    for column in model.columns {
                        let problem = Self.columnProblem(object[column.name], column.type)
                        #expect(problem == nil, "\(model.entity).\(column.name): \(problem ?? "") (\(model.source))")
                    }
                }
            }
        }
    }

    static func columnProblem(_ value: JSONValue?, _ type: ModelDefinition.ColumnType) -> String? {
        guard let value else { return "missing" }
        switch (type, value) {
        case (.long, .int), (.boolean, .bool), (.string, .string), (.date, .int), (.date, .null):
            return nil
        case (.int, .int(let number)):
            return Int32(exactly: number) == nil ? "\(number) is not an int" : nil
        case (.double, .int), (.double, .double), (.double, .number):
            return nil
        default:
            return "\(value.typeName), not \(type.rawValue)"
        }
    }
}
