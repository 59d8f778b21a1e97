import ScreensBus

/// Liferay headless delivery (7.1+): `GET .../structured-contents?page=1&pageSize=25`,
/// 1-based pages of one size, `totalCount` on every page, the locale as Accept-Language.
struct HeadlessProtocol: ListProtocol {
    let spec: HeadlessSourceSpec
    let baseURL: String
    let locale: String?

    var identity: String {
        (["liferay-headless", redactedURL(spec.path)] + spec.query.map(\.description)).joined(separator: " ")
    }

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

    func decode(_ body: JSONValue, response: HTTPResponse, page: PageRequest) throws(ScreensPipeError) -> DecodedPage {
        guard case .array(let items)? = body["items"] else {
            throw ScreensPipeError(.malformedResponse, "expected an object with an \"items\" array, found \(body.typeName)")
        }
        let size = page.endRow - page.startRow
        let numbers = try HeadlessPageNumbers(body, pageSize: size)
        try numbers.check()
        var decoded = DecodedPage(rows: items, rowCount: numbers.totalCount)
        if numbers.totalCount == nil { decoded.pageCount = numbers.lastPage }
        return decoded
    }
}

extension String {
    /// `es_ES` -> `es-ES` (HTTP language tags use hyphens; Liferay locales use underscores).
    func replacingUnderscores() -> String {
        String(map { $0 == "_" ? "-" : $0 })
    }
}

/// Query strings built by hand, so values are percent-encoded exactly once.
enum URLText {
    static func appending(query: [QueryParameter], to url: String) -> String {
        guard !query.isEmpty else { return url }
        let encoded = query.map { "\(encode($0.name))=\(encode($0.value))" }.joined(separator: "&")
        return url + (url.contains("?") ? "&" : "?") + encoded
    }

    static func encode(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                result += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return result
    }

    /// Resolves a link from a response against the URL it came from (RFC 3986 §5.2).
    static func resolve(_ link: String, against base: String) -> String {
        URIReference.resolve(link, against: base)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
