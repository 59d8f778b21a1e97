import ScreensBus

/// A sink type a product other than the core provides (`sink.type: postgres`): its keys,
/// how its section is read and described, and how it opens. As Vector keeps a component's
/// config, build and logic together, the type's product holds all of it; the core reads
/// `sink:` through ``BackendRegistry`` and names none of them.
package protocol SinkType: Sendable {
    /// The `sink.type` it answers to.
    var name: String { get }
    /// What it does, for the schema's description of `sink.type` ("postgres upserts them into a table").
    var summary: String { get }
    /// The keys of `sink:` that only this type takes: refused, with its name, under another type.
    var ownKeys: [String] { get }
    /// The JSON Schema value of each of ``ownKeys``.
    var schemaValues: [String: JSONValue] { get }
    /// Reads the section, reporting mistakes through `decoder`'s context; nil after one.
    func decode(_ section: Section, decoder: SpecDecoder) -> (any SinkConfiguration)?
}

/// One configured sink of a registered type (a ``SinkType``'s decoded section).
package protocol SinkConfiguration: Sendable, Hashable {
    /// The type's name, as `sink.type` gives it.
    var typeName: String { get }
    /// The section as the pipeline's redacted description shows it: no secret in it.
    var describedMembers: [(String, YAMLTextWriter.Value)] { get }
    /// Opens the sink for one run; `environment` holds the variables secrets come from.
    func open(environment: [String: String]) async throws(ScreensPipeError) -> any EventSink
    /// Refuses, through `decoder`'s context, what the rest of the pipeline (`top`) makes
    /// wrong for this sink, such as a table mirrored from an incremental run.
    func checkPipeline(_ top: Section, incremental: Bool, filter: FilterSpec?, decoder: SpecDecoder)
}

extension SinkConfiguration {
    package func checkPipeline(_ top: Section, incremental: Bool, filter: FilterSpec?, decoder: SpecDecoder) {}
}

/// A sink of a type a linked product registered (``SinkDestination/registered(_:)``).
public struct RegisteredSink: Sendable, Hashable, CustomStringConvertible {
    package let configuration: any SinkConfiguration

    package init(_ configuration: any SinkConfiguration) {
        self.configuration = configuration
    }

    /// The sink's type (`postgres`).
    public var typeName: String { configuration.typeName }

    public var description: String { "sink of type \(typeName)" }

    public static func == (lhs: RegisteredSink, rhs: RegisteredSink) -> Bool {
        AnyHashable(lhs.configuration) == AnyHashable(rhs.configuration)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(AnyHashable(configuration))
    }
}
