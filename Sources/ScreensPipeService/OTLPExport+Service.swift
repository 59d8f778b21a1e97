// A service that embeds pipelines exports their spans the way the CLI does: one import.
//
//     let export = OTLPExport.start(logger: logger)   // when OTEL_EXPORTER_OTLP_ENDPOINT is set
//     try await ServiceGroup(services: [service], ...).run()
//     await export?.shutdown()
@_exported import ScreensPipeOTel
