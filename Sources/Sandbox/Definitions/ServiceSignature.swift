/// One remote service method as a Liferay portal registers it for JSON-WS: its path, its
/// parameters in declaration order, the portal versions that have it and where that was read.
public struct ServiceSignature: Sendable, CustomStringConvertible {
    /// One declared parameter: its name and Java type (`long`, `Locale`, a class name...).
    public struct Parameter: Sendable, Hashable {
        /// The parameter name JSON-WS matches on.
        public var name: String
        /// `long`, `int`, `String`, `Locale`, `String[]` or a class name.
        public var javaType: String

        /// A parameter `name` of `javaType`.
        public init(_ name: String, _ javaType: String) {
            self.name = name
            self.javaType = javaType
        }
    }

    /// `/bookmarks.bookmarksentry/get-entries`.
    public var path: String
    /// The declared parameters, in declaration order.
    public var parameters: [Parameter]
    /// The portal versions whose JSON-WS catalogue has this method.
    public var versions: ClosedRange<LiferayVersion>
    /// The files the signature was read from, one per catalogue that lists it.
    public var sources: [DefinitionSource]

    /// A signature at `path` with `parameters`, in `versions`, read from `sources`.
    public init(_ path: String, _ parameters: [Parameter], versions: ClosedRange<LiferayVersion>, sources: [DefinitionSource]) {
        self.path = path
        self.parameters = parameters
        self.versions = versions
        self.sources = sources
    }

    /// The parameter names, in declaration order.
    public var parameterNames: [String] { parameters.map(\.name) }

    /// The key the portal sorts same-path actions by, which settles ties:
    /// `path-count-name1-name2...` (JSONWebServiceActionConfig's signature, without the class).
    var sortKey: String { ([path, String(parameters.count)] + parameterNames).joined(separator: "-") }

    /// `/path(name1, name2)`.
    public var description: String { "\(path)(\(parameterNames.joined(separator: ", ")))" }
}

extension DefinitionSource {
    /// One Mobile SDK service class per SDK folder listed.
    static func mobileSDK(_ folders: [String], _ service: String) -> [DefinitionSource] {
        folders.map { mobileSDKAndroid($0, service) }
    }
}
