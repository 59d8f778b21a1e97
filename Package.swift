// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "screens-pipe",
    // Linux only for now: OutputFile and Terminal call Glibc, and nothing builds for macOS
    // here, so no platform is claimed.
    // Products along the dependency lines (docs/architecture.md, "Products"): an embedder
    // links only what it uses. ScreensPipe is the umbrella over all of them.
    products: [
        // JSON values, parsing and writing; no dependencies.
        .library(name: "ScreensJSON", targets: ["ScreensJSON"]),
        // The typed event bus and its events.
        .library(name: "ScreensBus", targets: ["ScreensBus"]),
        // Sources over libcurl, convert, filter, file and stdout sinks, the pipeline file,
        // sessions, the write path: swift-log and swift-metrics only, no database.
        .library(name: "ScreensPipeCore", targets: ["ScreensPipeCore"]),
        // The SQLite store (GRDB): cache, list states, write journal.
        .library(name: "ScreensPipeSQLite", targets: ["ScreensPipeSQLite"]),
        // PostgreSQL (PostgresNIO): shared cache, states and locks, and the postgres sink.
        .library(name: "ScreensPipePostgres", targets: ["ScreensPipePostgres"]),
        // Every product above and the bundled sandbox, behind one import.
        .library(name: "ScreensPipe", targets: ["ScreensPipe"]),
        // The sandbox portal, and BundledSandbox to start it for `server: sandbox`.
        .library(name: "Sandbox", targets: ["Sandbox", "ScreensPipeSandbox"]),
        .library(name: "ScreensPipeService", targets: ["ScreensPipeService"]),
        // For embedders' tests, as swift-log ships InMemoryLogging: a scripted source and a run recorder.
        .library(name: "ScreensPipeTesting", targets: ["ScreensPipeTesting"]),
        // OTLP export of the pipeline's spans (swift-otel), for the CLI and the service: built
        // with swift-otel only with the `OTLP` trait (`swift build --traits OTLP`); without it,
        // a bootstrap that warns once when OTEL_EXPORTER_OTLP_ENDPOINT asks for an export.
        .library(name: "ScreensPipeOTel", targets: ["ScreensPipeOTel"]),
        .executable(name: "screens-pipe", targets: ["screens-pipe"]),
    ],
    // Not default: the default build does not build swift-otel and its HTTP client.
    traits: [
        .trait(name: "OTLP", description: "Export spans over OTLP/HTTP with swift-otel (ScreensPipeOTel)"),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // The library emits through swift-metrics; the CLI and the service export Prometheus text.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // Shared cache, list state and the postgres sink (fleets of replicas on one database).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // `make docs` only: the DocC articles and API reference; nothing links against it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // Spans for runs, lists, pages and HTTP attempts (the API only: swift-service-context).
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        // OTLP export, only in a build with the `OTLP` trait; its HTTP exporter only (no gRPC).
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CLibYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        // glibc's GNU extensions Swift's Glibc module lacks (part of libc: nothing to install).
        .systemLibrary(name: "CSystemExtras"),
        // The core's registry calls each linked backend product's registration (weak C symbols).
        .target(name: "CLinkedBackends"),
        .target(name: "ScreensJSON"),
        .target(name: "ScreensBus", dependencies: ["ScreensJSON"]),
        .target(
            name: "ScreensPipeCore",
            dependencies: [
                "ScreensBus",
                "CCurl",
                "CLibYAML",
                "CSystemExtras",
                "CLinkedBackends",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        .target(
            name: "ScreensPipeSQLite",
            dependencies: [
                "ScreensPipeCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .target(
            name: "ScreensPipePostgres",
            dependencies: [
                "ScreensPipeCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .target(
            name: "ScreensPipe",
            dependencies: ["ScreensPipeCore", "ScreensPipeSQLite", "ScreensPipePostgres", "ScreensPipeSandbox"]
        ),
        .target(
            name: "Sandbox",
            dependencies: [
                "ScreensJSON",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            resources: [.copy("Data")]
        ),
        // BundledSandbox: the sandbox as a pipeline's SandboxLauncher.
        .target(name: "ScreensPipeSandbox", dependencies: ["ScreensPipeCore", "Sandbox"]),
        .target(
            name: "ScreensPipeService",
            dependencies: [
                "ScreensPipeCore",
                "ScreensPipeOTel",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .target(name: "ScreensPipeTesting", dependencies: ["ScreensBus", "ScreensPipeCore"]),
        .target(
            name: "ScreensPipeOTel",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                .product(name: "OTel", package: "swift-otel", condition: .when(traits: ["OTLP"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["OTLP"])),
            ]
        ),
        .executableTarget(
            name: "screens-pipe",
            dependencies: [
                "ScreensPipe",
                "ScreensPipeOTel",
                "Sandbox",
                "CSystemExtras",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        // samples/embed as an example target (as swift-argument-parser builds its Examples/):
        // built with this package's dependencies instead of a second copy of all of them.
        .executableTarget(
            name: "embed-sample",
            dependencies: [
                "ScreensPipe", "Sandbox", "ScreensPipeService",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "samples/embed/Sources/embed-sample"
        ),
        // samples/core-embedder: a list into its own subscriber with the pipeline core alone
        // (its closure has no GRDB, PostgresNIO or SwiftNIO; CoreEmbedderTests checks the binary).
        .executableTarget(
            name: "core-embedder",
            dependencies: ["ScreensPipeCore"],
            path: "samples/core-embedder/Sources/core-embedder"
        ),
        .executableTarget(
            name: "screens-pipe-bench",
            dependencies: ["ScreensBus", "ScreensPipe"],
            path: "Benchmarks/screens-pipe-bench"
        ),
        // What the test targets share; not a test target itself.
        .target(name: "TestSupport", dependencies: ["ScreensBus"], path: "Tests/TestSupport"),
        .testTarget(name: "ScreensBusTests", dependencies: ["ScreensBus", "ScreensJSON", "TestSupport"]),
        .testTarget(
            name: "ScreensPipeTests",
            dependencies: [
                "ScreensPipe", "ScreensPipeCore", "ScreensPipeSQLite", "ScreensPipePostgres", "Sandbox", "ScreensPipeService",
                "ScreensPipeTesting", "TestSupport",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // Spans recorded in memory, to check names, parents and attributes.
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                // A fresh database per PostgreSQL test, and reading back what the sink wrote.
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "ScreensPipeServiceTests",
            dependencies: [
                "ScreensPipeService", "ScreensPipe", "Sandbox", "TestSupport",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .testTarget(
            name: "SandboxTests", dependencies: ["Sandbox", "ScreensJSON", "TestSupport"],
            // The published schemas the fidelity tests read by path.
            exclude: ["Fidelity/Schemas"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["ScreensBus", "ScreensPipe", "Sandbox", "TestSupport"]
        ),
    ]
)
