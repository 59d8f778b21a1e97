import Foundation
import Logging

#if OTLP
import OTel
import ServiceLifecycle
#endif

/// OTLP export of the spans screens-pipe creates (see `PipelineSpans` in ScreensPipeCore),
/// turned on by OpenTelemetry's standard environment variables.
///
/// ```swift
/// let export = OTLPExport.start(logger: logger)   // nil unless OTEL_EXPORTER_OTLP_ENDPOINT is set
/// let summary = try await pipeline.run()          // its spans go to the exporter
/// await export?.shutdown()                        // sends the spans not sent yet
/// ```
///
/// The export is built only with the package trait `OTLP` (`swift build --traits OTLP`, or
/// `make build TRAITS=OTLP`): swift-otel and its HTTP client stay out of the default build.
/// Without it, ``start(environment:logger:)`` warns once when the variables ask for an
/// export, and returns nil.
///
/// Only traces are exported (logs and metrics keep the process's own backends), over
/// OTLP/HTTP: `http/protobuf` (the default) or `http/json` as `OTEL_EXPORTER_OTLP_PROTOCOL`
/// says; `grpc` is refused with a warning, as this build has no gRPC exporter. The service
/// is named `screens-pipe` unless `OTEL_SERVICE_NAME` or a `service.name` in
/// `OTEL_RESOURCE_ATTRIBUTES` names it. `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`
/// turn the export off.
public final class OTLPExport: Sendable {
    /// The variable that turns the export on (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`).
    public static let endpointVariable = "OTEL_EXPORTER_OTLP_ENDPOINT"

    /// Whether this build can export (it was built with the `OTLP` trait).
    public static var isAvailable: Bool {
        #if OTLP
        true
        #else
        false
        #endif
    }

    /// What a build without the trait says when the environment asks for an export.
    public static let unavailableWarning =
        "\(endpointVariable) is set, but this screens-pipe was built without OTLP export, so no span is exported; "
        + "build it with `swift build --traits OTLP` (or `make build TRAITS=OTLP`)"

    /// Whether `environment` asks for an export: an endpoint is set, and neither
    /// `OTEL_SDK_DISABLED=true` nor `OTEL_TRACES_EXPORTER=none` turns it off.
    public static func isRequested(in environment: [String: String]) -> Bool {
        guard environment["OTEL_SDK_DISABLED"]?.lowercased() != "true",
            environment["OTEL_TRACES_EXPORTER"]?.lowercased() != "none"
        else { return false }
        return [endpointVariable, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"].contains { !(environment[$0] ?? "").isEmpty }
    }

    /// The protocol the environment asks for (the traces-specific variable first), when it
    /// is one this build cannot speak: swift-otel stops the process with a fatal error for
    /// `grpc` without its gRPC trait, so it is refused here instead.
    static func unsupportedProtocol(in environment: [String: String]) -> String? {
        let asked = environment["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"] ?? environment["OTEL_EXPORTER_OTLP_PROTOCOL"]
        guard let asked, !asked.isEmpty, !["http/protobuf", "http/json"].contains(asked) else { return nil }
        return asked
    }

    /// Whether `environment` names the service itself (swift-otel then takes its name).
    static func namesService(_ environment: [String: String]) -> Bool {
        if !(environment["OTEL_SERVICE_NAME"] ?? "").isEmpty { return true }
        return (environment["OTEL_RESOURCE_ATTRIBUTES"] ?? "").split(separator: ",").contains {
            $0.split(separator: "=", maxSplits: 1).first?.trimmingCharacters(in: .whitespaces) == "service.name"
        }
    }

    #if OTLP
    private let group: ServiceGroup
    private let running: Task<Void, Never>

    private init(group: ServiceGroup, logger: Logger) {
        self.group = group
        running = Task {
            do {
                try await group.run()
            } catch {
                logger.warning("OTLP export stopped: \(error)")
            }
        }
    }
    #endif

    /// Bootstraps the process's tracer with an OTLP exporter when `environment` asks for one,
    /// and returns the export to shut down at the end; nil when none is asked for, or when
    /// this build cannot export (then `logger` gets ``unavailableWarning``) or the
    /// variables are invalid (then `logger` gets why). Call it once per process.
    public static func start(
        environment: [String: String] = ProcessInfo.processInfo.environment, logger: Logger
    ) -> OTLPExport? {
        guard isRequested(in: environment) else { return nil }
        if let asked = unsupportedProtocol(in: environment) {
            logger.warning("no OTLP export: OTEL_EXPORTER_OTLP_PROTOCOL=\(asked) is not supported; use http/protobuf or http/json")
            return nil
        }
        #if OTLP
        var configuration = OTel.Configuration.default
        // swift-otel keeps a service.name of OTEL_RESOURCE_ATTRIBUTES only while this is the default.
        if !namesService(environment) { configuration.serviceName = "screens-pipe" }
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.diagnosticLogger = .custom(logger)
        configuration.diagnosticLogLevel = .warning
        do {
            // The environment's OTEL_* variables override these defaults.
            let service = try OTel.bootstrap(configuration: configuration, environment: environment)
            let group = ServiceGroup(services: [service], logger: logger)
            return OTLPExport(group: group, logger: logger)
        } catch {
            logger.warning("no OTLP export: \(error)")
            return nil
        }
        #else
        logger.warning("\(unavailableWarning)")
        return nil
        #endif
    }

    /// Sends the spans not sent yet (bounded by the exporter's timeout) and stops the export.
    public func shutdown() async {
        #if OTLP
        await group.triggerGracefulShutdown()
        await running.value
        #endif
    }
}
