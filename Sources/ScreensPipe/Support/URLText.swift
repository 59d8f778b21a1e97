import ScreensBus

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
