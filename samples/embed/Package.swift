// swift-tools-version: 6.1
// A service that embeds screens-pipe: loads pipelines/bookmarks.yaml against the bundled
// sandbox portal and prints the selected rows from its own event loop.
import PackageDescription

let package = Package(
    name: "embed-sample",
    dependencies: [
        .package(name: "screens-pipe", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "embed-sample",
            dependencies: [
                .product(name: "ScreensPipe", package: "screens-pipe"),
                .product(name: "Sandbox", package: "screens-pipe"),
            ]
        ),
    ]
)
