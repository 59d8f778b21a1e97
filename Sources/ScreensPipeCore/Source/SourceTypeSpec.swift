/// The `source.type` of a pipeline and the settings of that type: ``JSONWSSourceSpec``,
/// ``HeadlessSourceSpec``, ``RESTSourceSpec``, ``FileSourceSpec``, or a fetcher written in
/// Swift (``custom(_:)``).
///
/// Make one with the type's factory (`.liferayJSONWS(spec)`, `.rest(spec)`...) and read the
/// settings back with ``settings(as:)``.
public struct SourceTypeSpec: Sendable, Hashable, CustomStringConvertible {
    /// The settings, with everything built from them (see ``SourceTypeSettings``).
    let settings: any SourceTypeSettings

    init(_ settings: some SourceTypeSettings) {
        self.settings = settings
    }

    /// The `type:` name as written in a pipeline file (`custom` for a fetcher built in code).
    public var typeName: String { settings.typeName }

    /// The settings when they are of type `Settings`: `spec.source.type.settings(as: RESTSourceSpec.self)`.
    public func settings<Settings>(as type: Settings.Type) -> Settings? {
        settings as? Settings
    }

    /// The `type:` name; the settings are described by `plan`, with secrets redacted.
    public var description: String { typeName }

    /// Equal types with equal settings.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.settings.isEqual(to: rhs.settings)
    }

    /// Hashes the type name and the settings.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(typeName)
        settings.hash(into: &hasher)
    }
}
