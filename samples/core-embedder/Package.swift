// swift-tools-version: 6.1
// A service that needs one Liferay list and nothing else: it depends on the pipeline core
// alone, so it compiles and links no SQLite (GRDB), no PostgreSQL (PostgresNIO) and no
// SwiftNIO. Add .product(name: "ScreensPipeSQLite", ...) to cache pages in SQLite.
import PackageDescription

let package = Package(
    name: "core-embedder",
    dependencies: [
        // A path dependency is named after its folder: `name:` says which package it is.
        .package(name: "screens-pipe", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "core-embedder",
            dependencies: [.product(name: "ScreensPipeCore", package: "screens-pipe")]
        ),
    ]
)
