// swift-tools-version: 6.1
// A program that embeds screens-pipe: loads pipelines/bookmarks.yaml against the bundled
// sandbox portal and prints the selected rows as its own Decodable type; a failed run is a
// thrown error; --stop-after cancels; --service runs it as a PipelineService.
import PackageDescription

let package = Package(
    name: "embed-sample",
    dependencies: [
        .package(name: "screens-pipe", path: "../.."),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .executableTarget(
            name: "embed-sample",
            dependencies: [
                .product(name: "ScreensPipe", package: "screens-pipe"),
                .product(name: "Sandbox", package: "screens-pipe"),
                .product(name: "ScreensPipeService", package: "screens-pipe"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ]
)
