import ScreensBus

/// A source written in Swift: any ``PageFetcher``, built in code. It has no `type:` in a
/// pipeline file, so it is not in ``SourceRegistry``.
struct CustomSourceSettings: SourceTypeSettings {
    let fetcher: any PageFetcher

    static var typeName: String { "custom" }

    static var ownKeys: [String] { [] }

    /// None of the network keys reach a fetcher built in code.
    static var isNetworked: Bool { false }

    /// Never named in a file.
    static func decode(_ section: Section, decoder: SpecDecoder, shared: SourceSpec) -> Self? { nil }

    var redactedMembers: [(String, YAMLTextWriter.Value)] { [("summary", .string(fetcher.summary))] }

    var cacheIdentity: JSONValue { cacheRequest(identity: fetcher.identity) }

    var identity: String { fetcher.identity }

    /// The fetcher's identity never holds a secret (PageFetcher's contract); it is hashed
    /// anyway, as a code-built source's text is not reviewed by the loader.
    func cacheRequest(identity: String) -> JSONValue {
        ["type": .string(Self.typeName), "identity": .string(CacheKey.digest(identity))]
    }

    func blueprint(_ build: SourceBuild) throws(ScreensPipeError) -> SourceBlueprint { .fetcher(fetcher) }

    /// Two custom sources are the same source when they answer the same: equal identities.
    static func == (lhs: Self, rhs: Self) -> Bool { lhs.fetcher.identity == rhs.fetcher.identity }

    func hash(into hasher: inout Hasher) { hasher.combine(fetcher.identity) }
}

extension SourceTypeSpec {
    /// A source written in Swift: any ``PageFetcher``, built in code (there is no `type:` for
    /// it in a pipeline file). The cache, convert, filter and sink stages work as for the
    /// built-in types; the cache key holds a digest of the fetcher's ``PageFetcher/identity``.
    public static func custom(_ fetcher: any PageFetcher) -> Self {
        Self(CustomSourceSettings(fetcher: fetcher))
    }
}
