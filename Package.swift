// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "screens-pipe",
    // Linux only for now: OutputFile and Terminal call Glibc, and nothing builds for macOS
    // here, so no platform is claimed.
    products: [
        .library(name: "ScreensBus", targets: ["ScreensBus"]),
        .library(name: "ScreensPipe", targets: ["ScreensPipe"]),
        .library(name: "Sandbox", targets: ["Sandbox"]),
        .library(name: "ScreensPipeService", targets: ["ScreensPipeService"]),
        // For embedders' tests, as swift-log ships InMemoryLogging: a scripted source and a run recorder.
        .library(name: "ScreensPipeTesting", targets: ["ScreensPipeTesting"]),
        .executable(name: "screens-pipe", targets: ["screens-pipe"]),
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
        .target(name: "ScreensBus"),
        .target(
            name: "ScreensPipe",
            dependencies: [
                "ScreensBus",
                "CCurl",
                "CLibYAML",
                "CSystemExtras",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .target(
            name: "Sandbox",
            dependencies: [
                "ScreensBus",
                // For BundledSandbox, the SandboxLauncher embedders pass to a pipeline.
                "ScreensPipe",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            resources: [.copy("Data")]
        ),
        .target(
            name: "ScreensPipeService",
            dependencies: [
                "ScreensPipe",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .target(name: "ScreensPipeTesting", dependencies: ["ScreensBus", "ScreensPipe"]),
        .executableTarget(
            name: "screens-pipe",
            dependencies: [
                "ScreensPipe",
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
            dependencies: ["ScreensPipe", "Sandbox"],
            path: "samples/embed/Sources/embed-sample"
        ),
        .executableTarget(
            name: "screens-pipe-bench",
            dependencies: ["ScreensBus", "ScreensPipe"],
            path: "Benchmarks/screens-pipe-bench"
        ),
        // What the test targets share; not a test target itself.
        .target(name: "TestSupport", dependencies: ["ScreensBus"], path: "Tests/TestSupport"),
        .testTarget(name: "ScreensBusTests", dependencies: ["ScreensBus", "TestSupport"]),
        .testTarget(
            name: "ScreensPipeTests",
            dependencies: [
                "ScreensPipe", "Sandbox", "ScreensPipeService", "ScreensPipeTesting", "TestSupport",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
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
            name: "SandboxTests", dependencies: ["Sandbox", "ScreensBus", "TestSupport"],
            // The published schemas the fidelity tests read by path.
            exclude: ["Fidelity/Schemas"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["ScreensBus", "ScreensPipe", "Sandbox", "TestSupport"]
        ),
    ]
)
