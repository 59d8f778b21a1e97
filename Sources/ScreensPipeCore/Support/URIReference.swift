/// A URI reference cut into the five components of RFC 3986 §3, and resolved against a
/// base URI exactly as RFC 3986 §5.2 says (strict parser: a reference with a scheme is
/// absolute, even when it is the base's scheme).
///
/// Next links and `Link` header targets are resolved with it: `?page=2`, `//host/x`,
/// `../items` and dot segments all mean what the RFC says, not what a prefix test guesses.
/// Text is not decoded or normalised: what the server sent is what is requested.
struct URIReference: Hashable, Sendable {
    /// The scheme without its `:`; nil when the reference has none (a relative reference).
    var scheme: Substring?
    /// The authority without its `//`; nil when there is none (an empty authority is `""`).
    var authority: Substring?
    /// The path, possibly empty.
    var path: Substring
    /// The query without its `?`; nil when there is no `?` at all.
    var query: Substring?
    /// The fragment without its `#`; nil when there is no `#` at all.
    var fragment: Substring?

    /// Cuts `text` the way the regular expression of RFC 3986 Appendix B does, with the
    /// scheme checked against the grammar of §3.1 (`ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`):
    /// a first segment such as `1abc:x` is a path, not a scheme.
    init(_ text: String) {
        var rest = Substring(text)
        if let colon = rest.firstIndex(where: { $0 == ":" || $0 == "/" || $0 == "?" || $0 == "#" }),
            rest[colon] == ":", Self.isScheme(rest[..<colon])
        {
            scheme = rest[..<colon]
            rest = rest[rest.index(after: colon)...]
        } else {
            scheme = nil
        }
        if rest.hasPrefix("//") {
            let start = rest.index(rest.startIndex, offsetBy: 2)
            let end = rest[start...].firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
            authority = rest[start..<end]
            rest = rest[end...]
        } else {
            authority = nil
        }
        if let hash = rest.firstIndex(of: "#") {
            fragment = rest[rest.index(after: hash)...]
            rest = rest[..<hash]
        } else {
            fragment = nil
        }
        if let question = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: question)...]
            rest = rest[..<question]
        } else {
            query = nil
        }
        path = rest
    }

    private init(scheme: Substring?, authority: Substring?, path: Substring, query: Substring?, fragment: Substring?) {
        self.scheme = scheme
        self.authority = authority
        self.path = path
        self.query = query
        self.fragment = fragment
    }

    /// The reference recomposed as RFC 3986 §5.3 says.
    var text: String {
        var result = ""
        if let scheme { result += scheme + ":" }
        if let authority { result += "//" + authority }
        result += path
        if let query { result += "?" + query }
        if let fragment { result += "#" + fragment }
        return result
    }

    /// `reference` resolved against this (absolute) base URI: RFC 3986 §5.2.2.
    func resolving(_ reference: URIReference) -> URIReference {
        if let scheme = reference.scheme {
            return URIReference(
                scheme: scheme, authority: reference.authority, path: Self.removingDotSegments(reference.path),
                query: reference.query, fragment: reference.fragment)
        }
        if let authority = reference.authority {
            return URIReference(
                scheme: scheme, authority: authority, path: Self.removingDotSegments(reference.path),
                query: reference.query, fragment: reference.fragment)
        }
        if reference.path.isEmpty {
            return URIReference(
                scheme: scheme, authority: authority, path: path, query: reference.query ?? query,
                fragment: reference.fragment)
        }
        let merged = reference.path.hasPrefix("/") ? reference.path : merging(reference.path)
        return URIReference(
            scheme: scheme, authority: authority, path: Self.removingDotSegments(merged), query: reference.query,
            fragment: reference.fragment)
    }

    /// `reference` resolved against `base`, as text.
    static func resolve(_ reference: String, against base: String) -> String {
        URIReference(base).resolving(URIReference(reference)).text
    }

    /// RFC 3986 §5.2.3: a relative path appended to the base's directory.
    private func merging(_ relative: Substring) -> Substring {
        if authority != nil, path.isEmpty { return "/" + relative }
        guard let slash = path.lastIndex(of: "/") else { return relative }
        return path[...slash] + relative
    }

    /// RFC 3986 §5.2.4, the algorithm as written: an input buffer consumed from the left and
    /// an output buffer of segments.
    static func removingDotSegments(_ path: Substring) -> Substring {
        guard path.contains(".") else { return path }
        var input = path
        var output: [Substring] = []  // each element starts with "/" except possibly the first
        while !input.isEmpty {
            if input.hasPrefix("../") {
                input = input.dropFirst(3)
            } else if input.hasPrefix("./") {
                input = input.dropFirst(2)
            } else if input.hasPrefix("/./") {
                input = input.dropFirst(2)
            } else if input == "/." {
                input = "/"
            } else if input.hasPrefix("/../") {
                input = input.dropFirst(3)
                if !output.isEmpty { output.removeLast() }
            } else if input == "/.." {
                input = "/"
                if !output.isEmpty { output.removeLast() }
            } else if input == "." || input == ".." {
                input = ""
            } else {
                // Move the first segment, with its leading "/" if any, up to the next "/".
                let searchStart = input.hasPrefix("/") ? input.index(after: input.startIndex) : input.startIndex
                let end = input[searchStart...].firstIndex(of: "/") ?? input.endIndex
                output.append(input[..<end])
                input = input[end...]
            }
        }
        return Substring(output.joined())
    }

    private static func isScheme(_ text: Substring) -> Bool {
        guard let first = text.unicodeScalars.first, first.isASCIILetter else { return false }
        return text.unicodeScalars.allSatisfy { $0.isASCIILetter || ("0"..."9").contains($0) || $0 == "+" || $0 == "-" || $0 == "." }
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
