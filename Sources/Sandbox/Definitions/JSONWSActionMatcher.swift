/// Picks the JSON-WS action a command invokes, with the portal's own rule.
///
/// A command's keys name parameters as `JSONWebServiceActionParametersMap.put` reads them:
/// `-name` names `name` with a null value, `+name` names it with a type (the value is the
/// class), `name:type` and `+name:type` carry the type in the key, and `name.field` sets a
/// field of the object parameter `name` without naming `name` itself. `serviceContext` is
/// always named (the portal adds it by default).
///
/// Among the signatures at the command's path, an action is chosen only when the command
/// names every one of its parameters (names compare case-insensitively); the one with the
/// most matched names wins, ties going to the first in the portal's signature order. Extra
/// parameters are ignored. A path ending in `.N` (a "hint") picks among the N-parameter
/// signatures and needs none of them named.
///
/// Sources: ``DefinitionSource/actionMatching`` and ``DefinitionSource/parameterNaming``.
public struct JSONWSActionMatcher: Sendable {
    /// The signatures served, usually ``JSONWSSignatures/signatures(for:)``.
    public let signatures: [ServiceSignature]

    /// A matcher over `signatures`, kept in the portal's signature order (which settles ties).
    public init(signatures: [ServiceSignature]) {
        self.signatures = signatures.sorted { $0.sortKey < $1.sortKey }
    }

    /// The matcher for `version`'s catalogue.
    public init(version: LiferayVersion) {
        self.init(signatures: JSONWSSignatures.signatures(for: version))
    }

    /// The parameter names a command's keys give, as the portal reads them.
    public static func parameterNames(_ keys: some Sequence<String>) -> Set<String> {
        var names: Set<String> = ["serviceContext"]
        for key in keys {
            guard let name = namedParameter(key) else { continue }
            names.insert(name)
        }
        return names
    }

    /// The parameter a key names, or nil for an inner `name.field` key.
    public static func namedParameter(_ key: String) -> String? {
        var name = Substring(key)
        if name.hasPrefix("-") || name.hasPrefix("+") { name = name.dropFirst() }
        if let colon = name.firstIndex(of: ":") { name = name[..<colon] }
        return name.contains(".") ? nil : String(name)
    }

    /// The signature the portal invokes for `path` with a command naming `parameterNames`,
    /// or nil when it would answer "No JSON web service action".
    public func match(path: String, parameterNames: Set<String>) -> ServiceSignature? {
        let (basePath, hint) = Self.splitHint(path)
        let given = parameterNames.map { $0.lowercased() }
        var best: (signature: ServiceSignature, count: Int)?
        for signature in signatures where signature.path == basePath {
            if let hint, signature.parameters.count != hint { continue }
            // Counts (declared, given) pairs that are equal ignoring case, as the portal does.
            let count = signature.parameters.reduce(0) { total, parameter in
                let declared = parameter.name.lowercased()
                return total + given.filter { $0 == declared }.count
            }
            guard hint != nil || count >= signature.parameters.count else { continue }
            if count > (best?.count ?? -1) { best = (signature, count) }
        }
        return best?.signature
    }

    /// `/x.y/get-z.3` -> (`/x.y/get-z`, 3); the number must follow the method's last dot.
    static func splitHint(_ path: String) -> (path: String, hint: Int?) {
        guard let slash = path.lastIndex(of: "/"), let dot = path[slash...].lastIndex(of: "."),
            let hint = Int(path[path.index(after: dot)...]), hint >= 0
        else { return (path, nil) }
        return (String(path[..<dot]), hint)
    }

    /// The context the portal names in its "no action" message: the text between the first
    /// `/` and the last `.` before the second `/`, or `null` when the path has none.
    public static func contextName(of path: String) -> String {
        let afterSlash = path.dropFirst()
        guard let slash = afterSlash.firstIndex(of: "/"), let dot = afterSlash[..<slash].lastIndex(of: ".") else {
            return "null"
        }
        return String(afterSlash[..<dot])
    }
}
