@testable import Sandbox
import ScreensJSON
import Testing

/// The sandbox's headless delivery answers against the published OpenAPI definitions
/// (`Schemas/headless-delivery.json`, copied with its provenance) and the query parameters
/// Liferay documents for `getSiteStructuredContentsPage`.
@Suite("Fidelity: headless delivery against its OpenAPI schema")
struct HeadlessFidelityTests {
    static let path = "/o/headless-delivery/v1.0/sites/20143/structured-contents"

    static func page(_ client: TestHTTPClient, _ query: String, status: Int = 200, language: String? = nil) throws -> JSONValue {
        var headers = [TestHTTPClient.testUser]
        if let language { headers.append(("Accept-Language", language)) }
        return try client.get("\(path)?\(query)", headers: headers).expect(status).json()
    }

    static func percentEncoded(_ text: String) -> String {
        var allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        allowed.remove(UInt8(ascii: "+"))
        return text.utf8.map { allowed.contains($0) ? String(UnicodeScalar($0)) : String(format: "%%%02X", $0) }.joined()
    }

    @Test("every page the sandbox answers is a PageStructuredContent of StructuredContent items, contentStructureId an int64")
    func everyAnswerValidates() async throws {
        let validator = try SchemaValidator.load("headless-delivery.json")
        let queries = [
            "page=1&pageSize=25", "page=2&pageSize=25&flatten=true", "page=3&pageSize=25&flatten=true", "page=9&pageSize=50",
            "pageSize=5&sort=title:desc", "pageSize=5&fields=id,title,creator.name", "pageSize=5&restrictFields=contentFields",
            "pageSize=5&filter=" + Self.percentEncoded("contains(title,'results')"), "pageSize=5&search=oficina",
            "pageSize=5&nestedFields=embeddedTaxonomyCategory",
        ]
        try await withSandbox { client, _ in
            let client = client.patient
            for query in queries {
                for language in [nil, "es-ES"] {
                    let body = try Self.page(client, query, language: language)
                    let shaped = query.contains("fields=")
                    let problems = validator.violations(of: body, against: "PageStructuredContent", requiredProperties: !shaped)
                    #expect(problems.isEmpty, "\(query): \(problems.prefix(5))")
                }
            }
            let first = try Self.page(client, "pageSize=1")
            #expect(first["items"]?[0]?["contentStructureId"] == .int(20701))
        }
    }

    @Test("the schema check itself fails on a string contentStructureId, a missing title and an unknown property")
    func theValidatorRejects() throws {
        let validator = try SchemaValidator.load("headless-delivery.json")
        let bad: JSONValue = ["contentStructureId": "NEWS-ARTICLE", "madeUp": 1]
        let problems = validator.violations(of: bad, against: "StructuredContent")
        #expect(problems.contains("$.contentStructureId: string, not an integer"))
        #expect(problems.contains("$: missing required title"))
        #expect(problems.contains("$.madeUp: not a property of the schema"))
        #expect(validator.violations(of: ["contentStructureId": 1, "title": "t", "dateCreated": "2024-01-01"], against: "StructuredContent")
            == ["$.dateCreated: 2024-01-01 is not an RFC 3339 date-time"])
    }

    @Test("flatten: without it only the root folder's 60 articles, with flatten=true all 73")
    func flatten() async throws {
        try await withSandbox { client, _ in
            let client = client.patient
            let counts = try ["", "&flatten=true", "&flatten=TRUE", "&flatten=yes"].map {
                try Self.page(client, "pageSize=100\($0)")["totalCount"]
            }
            #expect(counts == [60, 73, 73, 60])
        }
    }

    /// Filters and the items they must select, computed from the unfiltered list.
    static let filters: [(filter: String, selects: @Sendable (JSONValue) -> Bool)] = [
        ("contains(title,'results')", { $0["title"]!.stringValue!.lowercased().contains("results") }),
        ("startswith(title,'Quarterly')", { $0["title"]!.stringValue!.lowercased().hasPrefix("quarterly") }),
        ("not contains(title,'results')", { !$0["title"]!.stringValue!.lowercased().contains("results") }),
        ("title eq 'Quarterly results #1'", { $0["title"] == "Quarterly results #1" }),
        ("title ne 'Quarterly results #1'", { $0["title"] != "Quarterly results #1" }),
        ("creatorId eq 20139", { $0["creator"]?["id"] == .int(20139) }),
        ("contentStructureId eq 20701 and creatorId ne 20139", { $0["creator"]?["id"] != .int(20139) }),
        ("(creatorId eq 20139) or contains(title,'office')", {
            $0["creator"]?["id"] == .int(20139) || $0["title"]!.stringValue!.lowercased().contains("office")
        }),
        ("dateCreated ge 2024-01-02T00:00:00Z", { $0["dateCreated"]!.stringValue! >= "2024-01-02T00:00:00Z" }),
        ("dateCreated lt 2024-01-02", { $0["dateCreated"]!.stringValue! < "2024-01-02T00:00:00Z" }),
        ("datePublished le 2024-01-01T10:00:00+01:00", { $0["datePublished"]!.stringValue! <= "2024-01-01T09:00:00Z" }),
        ("contentStructureId gt 1", { _ in true }),
    ]

    @Test("filter selects what the OData expression says, item for item")
    func filterSelects() async throws {
        try await withSandbox { client, _ in
            let client = client.patient
            let all = try #require(try Self.page(client, "pageSize=200&flatten=true")["items"]?.arrayValue)
            for (filter, selects) in Self.filters {
                let body = try Self.page(client, "pageSize=200&flatten=true&filter=\(Self.percentEncoded(filter))")
                let expected = all.filter(selects).compactMap { $0["id"] }
                #expect(body["items"]?.arrayValue?.compactMap { $0["id"] } == expected, "\(filter)")
                #expect(body["totalCount"] == .int(Int64(expected.count)), "\(filter)")
            }
        }
    }

    /// What the portal refuses, with the title of its 400 answer.
    static let refusedFilters: [(filter: String, title: String)] = [
        ("nope eq 1", "A property used in the filter criteria is not supported: nope eq 1"),
        ("description eq 'x'", "A property used in the filter criteria is not supported: description eq 'x'"),
        ("title eq", "Unable to parse the filter: unexpected the end of the filter at position 9"),
        ("title eq 'open", "Unable to parse the filter: the string at position 10 is not closed"),
        ("(title eq 'x'", "Unable to parse the filter: unexpected the end of the filter at position 14"),
        ("title eq 'x')", "Unable to parse the filter: unexpected ')' at position 13"),
        ("title gt 5", "Unable to compare a string with a number"),
        ("keywords/any(k:k eq 'x')", "The filter function keywords/any is not supported"),
        ("length(title) eq 3", "The filter function length is not supported"),
        (String(repeating: "(", count: 40) + "title eq 'x'" + String(repeating: ")", count: 40), "The filter nests deeper than 32 levels"),
        (String(repeating: "not ", count: 40) + "title eq 'x'", "The filter nests deeper than 32 levels"),
        ("title eq '" + String(repeating: "a", count: 5000) + "'", "The filter is longer than 4096 characters"),
    ]

    @Test("filter answers 400 BAD_REQUEST for what the portal refuses: unknown fields, bad syntax, hostile depth")
    func filterRefusals() async throws {
        try await withSandbox { client, _ in
            let client = client.patient
            for (filter, title) in Self.refusedFilters {
                let body = try Self.page(client, "filter=\(Self.percentEncoded(filter))", status: 400)
                #expect(body == ["status": "BAD_REQUEST", "title": .string(title)], "\(filter.prefix(60))")
            }
        }
    }

    @Test("hostile but legal: a 4,000-character chain of or-ed comparisons is evaluated; 300 fields paths are refused")
    func hostileSizes() async throws {
        try await withSandbox { client, _ in
            let client = client.patient
            let chain = Array(repeating: "creatorId eq 1", count: 220).joined(separator: " or ") + " or creatorId eq 20139"
            #expect(chain.utf8.count < ODataFilterParser.maximumLength)
            let body = try Self.page(client, "pageSize=1&filter=\(Self.percentEncoded(chain))")
            #expect(body["totalCount"] != 0)
            let paths = (0..<300).map { "f\($0)" }.joined(separator: ",")
            let refused = try Self.page(client, "fields=\(paths)", status: 400)
            #expect(refused["title"] == "fields names more than 256 fields")
        }
    }

    @Test("sort orders by entity-model fields, desc and asc, and refuses others as SortParserImpl does")
    func sort() async throws {
        try await withSandbox { client, _ in
            let client = client.patient
            let titles = try #require(try Self.page(client, "pageSize=200&sort=title:desc")["items"]?.arrayValue?.compactMap { $0["title"]?.stringValue })
            #expect(titles.count == 60)
            #expect(titles == titles.sorted { $0.lowercased() > $1.lowercased() })
            let dates = try #require(try Self.page(client, "pageSize=200&sort=dateModified,title")["items"]?.arrayValue?.compactMap { $0["dateModified"]?.stringValue })
            #expect(dates == dates.sorted())
            #expect(try Self.page(client, "sort=url", status: 400) == ["status": "BAD_REQUEST", "title": "Unable to sort by property: url"])
            #expect(try Self.page(client, "sort=title:asc:x", status: 400) == ["status": "BAD_REQUEST", "title": "Unable to parse sort string: title:asc:x"])
        }
    }

    @Test("search matches every term in title, description or fields, in the request's language")
    func search() async throws {
        try await withSandbox { client, _ in
            let client = client.patient
            let english = try Self.page(client, "pageSize=200&flatten=true&search=Quarterly%20results")
            let items = try #require(english["items"]?.arrayValue)
            #expect(!items.isEmpty)
            #expect(items.allSatisfy { $0["title"]!.stringValue!.contains("Quarterly results") })
            let spanish = try #require(
                try Self.page(client, "pageSize=200&flatten=true&search=trimestrales", language: "es-ES")["items"]?.arrayValue)
            #expect(!spanish.isEmpty)
            #expect(spanish.allSatisfy { $0["title"]!.stringValue!.contains("trimestrales") })
            #expect(try Self.page(client, "search=zzzz-nothing")["totalCount"] == 0)
        }
    }

    @Test("fields keeps only the listed paths; restrictFields drops them")
    func fieldSelection() async throws {
        try await withSandbox { client, _ in
            let client = client.patient
            let kept = try #require(try Self.page(client, "pageSize=2&fields=id,creator.name")["items"]?.arrayValue)
            #expect(kept.allSatisfy { $0.objectValue?.keys == ["creator", "id"] && $0["creator"]?.objectValue?.keys == ["name"] })
            let restricted = try #require(try Self.page(client, "pageSize=2&restrictFields=contentFields,creator.id")["items"]?.arrayValue)
            #expect(restricted.allSatisfy { $0["contentFields"] == nil && $0["creator"]?["id"] == nil && $0["title"] != nil })
        }
    }

    @Test("my-user-account/sites: the signed-in user's sites as a page of headless-admin-user Site items")
    func myUserAccountSites() async throws {
        let validator = try SchemaValidator.load("headless-admin-user.json")
        try await withSandbox { client, _ in
            let client = client.patient
            let path = "/o/headless-admin-user/v1.0/my-user-account/sites"
            let test = try client.get(path, headers: [TestHTTPClient.testUser]).expect(200).json()
            #expect(validator.violations(of: test, against: "PageSite").isEmpty, "\(validator.violations(of: test, against: "PageSite"))")
            #expect(test["items"]?.arrayValue?.compactMap { $0["id"] } == [20143, 20144, 20145])
            let joe = try client.get("\(path)?page=2&pageSize=1", headers: [TestHTTPClient.joe]).expect(200).json()
            #expect(joe["items"]?.arrayValue?.compactMap { $0["name"] } == ["Partners"])
            #expect(joe["totalCount"] == 2 && joe["lastPage"] == 2)
            _ = try client.get(path).expect(401)
        }
    }

    @Test("7.0 and 7.1 portals have no headless delivery: 404")
    func headlessNeedsSevenTwo() async throws {
        for version in [LiferayVersion.v7_0, .v7_1] {
            try await withSandbox(.init { $0.liferayVersion = version }) { client, _ in
                let client = client.patient
                _ = try client.get("\(Self.path)?page=1", headers: [TestHTTPClient.testUser]).expect(404)
            }
        }
    }
}
