import ScreensBus

/// Query strings built by hand, so values are percent-encoded exactly once.
enum URLText {
    static func appending(query: [QueryParameter], to url: String) -> String {
        guard !query.isEmpty else { return url }
        return url + (url.contains("?") ? "&" : "?") + formEncoded(query)
    }

    /// `parameters` as `name=value&...`, each part encoded by ``encode(_:alsoKeeping:)``: a
    /// query, or an `application/x-www-form-urlencoded` body (a sign-in form, a token request).
    static func formEncoded(_ parameters: [QueryParameter]) -> String {
        parameters.map { "\(encode($0.name))=\(encode($0.value))" }.joined(separator: "&")
    }

    /// `text` as one query value or path segment: every byte but RFC 3986's unreserved
    /// characters percent-encoded (`/`, `?`, `#`, `%` included), so the text cannot end the
    /// segment or the path. A dot segment needs ``isDotSegment(_:)`` besides.
    /// `also` keeps more bytes as they are, for a form another client defines (Screens'
    /// image URLs keep what Foundation's `urlHostAllowed` keeps).
    static func encode(_ text: String, alsoKeeping also: Set<UInt8> = []) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            case _ where also.contains(byte):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                result += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return result
    }

    /// Whether `text` is `.` or `..`: the dot segments RFC 3986 section 5.2.4 removes, and
    /// percent-encoding does not protect (`.` is unreserved, and `%2E` is decoded by a
    /// normalizer, section 6.2.2.2), so no encoding keeps them a name: they are refused.
    static func isDotSegment(_ text: String) -> Bool {
        text == "." || text == ".."
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
