import ScreensBus

/// Asks the portal for the ids of asset class names, one `/classname/fetch-class-name`
/// command per name in one batch. That service is `ClassNameService.fetchClassName(String
/// value)` in every portal version (6.2's `fetch-class-name-id` is gone from 7.0's remote
/// service); it answers the `ClassName` model, whose id is 0 for a name the portal does not
/// know. The "rows" of the answer are the ids, in the order of ``names``.
struct ClassNameLookup: WireFormat {
    /// The asset list whose classes are looked up (the lookup itself is never cached).
    let spec: JSONWSSourceSpec
    let names: [String]
    let baseURL: String

    static let service = "/classname/fetch-class-name"

    /// One request whatever the range: it is not a list.
    var requestsPageSize: Bool { false }

    var summary: String { "liferay-jsonws \(redactedURL(baseURL)) \(Self.service)" }

    func request(for page: PageRequest) throws(ScreensPipeError) -> HTTPRequest {
        JSONWSBatch.request(names.map { (Self.service, ["value": .string($0)]) }, baseURL: baseURL)
    }

    func decode(_ body: JSONValue, response: HTTPResponse, page: PageRequest) throws(ScreensPipeError) -> DecodedPage {
        let results = try JSONWSBatch.results(body, count: names.count)
        var ids: [JSONValue] = []
        for (name, result) in zip(names, results) {
            guard let id = result["classNameId"]?.int64Value ?? result.int64Value, id > 0 else {
                throw ScreensPipeError(
                    .configuration,
                    "the portal knows no class \(name) (\(Self.service) answered no class name id): check the name in source.classes; older portals name some classes differently")
            }
            ids.append(.int(id))
        }
        return DecodedPage(rows: ids)
    }
}
