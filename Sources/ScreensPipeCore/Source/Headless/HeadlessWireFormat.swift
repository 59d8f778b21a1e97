import ScreensBus

/// Liferay headless delivery (7.1+): `GET .../structured-contents?page=1&pageSize=25`,
/// 1-based pages of one size, `totalCount` on every page, the locale as Accept-Language.
struct HeadlessWireFormat: WireFormat {
    let spec: HeadlessSourceSpec
    let baseURL: String
    let locale: String?

    var summary: String { "liferay-headless \(redactedURL(baseURL))\(spec.path)" }

    func request(for page: PageRequest) throws(ScreensPipeError) -> HTTPRequest {
        let size = page.endRow - page.startRow
        // Pages are of one size here, so the page number follows from the first row.
        let number = size > 0 ? page.startRow / size + 1 : 1
        var query = spec.query
        query.append(QueryParameter(name: "page", value: String(number)))
        query.append(QueryParameter(name: "pageSize", value: String(size)))
        var request = HTTPRequest(url: URLText.appending(query: query, to: baseURL.trimmingSuffix("/") + spec.path))
        if let locale { request.headers.add(name: "Accept-Language", value: locale.replacingUnderscores()) }
        request.secretValues = spec.query.filter(\.text.isSecret).map(\.value)
        return request
    }

    func rowsPath(for page: PageRequest) -> [JSONPathStep]? { [.key("items")] }

    func decode(_ body: JSONValue, response: HTTPResponse, page: PageRequest) throws(ScreensPipeError) -> DecodedPage {
        guard case .array(let items)? = body["items"] else {
            throw ScreensPipeError.malformedResponse("expected an object with an \"items\" array, found \(body.typeName)")
        }
        let size = page.endRow - page.startRow
        let numbers = try HeadlessPageNumbers(body, pageSize: size)
        try numbers.check()
        var decoded = DecodedPage(rows: items, rowCount: numbers.totalCount)
        if numbers.totalCount == nil { decoded.pageCount = numbers.lastPage }
        return decoded
    }
}
