// swift-tools-version: 6.0
import PackageDescription

// The side-by-side benchmark against GRDB (issue 15): a package of its own, so the library's
// Package.swift names no package. Run it with
// `swift run -c release --package-path Examples/PeerBenchmark PeerBenchmark` (see README.md).
let package = Package(
    name: "PeerBenchmark",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    dependencies: [
        .package(name: "Repositories", path: "../.."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "PeerBenchmark",
            dependencies: [
                .product(name: "Repositories", package: "Repositories"),
                .product(name: "RepositoriesSQLite", package: "Repositories"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
