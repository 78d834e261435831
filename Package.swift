// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Repositories",
    platforms: [
        // `Mutex` (Synchronization) and Observation set the floor.
        .macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2),
    ],
    products: [
        .library(name: "Repositories", targets: ["Repositories"]),
        .library(name: "RepositoriesTesting", targets: ["RepositoriesTesting"]),
        .library(name: "RepositoriesSQLite", targets: ["RepositoriesSQLite"]),
        .library(name: "RepositoriesHTTP", targets: ["RepositoriesHTTP"]),
        .library(name: "RepositoriesPostgres", targets: ["RepositoriesPostgres"]),
        .executable(name: "QuickStart", targets: ["QuickStart"]),
    ],
    targets: [
        .target(name: "Repositories"),
        .target(name: "RepositoriesTesting", dependencies: ["Repositories"]),
        .systemLibrary(
            name: "CSQLite",
            path: "Sources/CSQLite",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .target(name: "RepositoriesSQLite", dependencies: ["Repositories", "CSQLite"]),
        .target(name: "RepositoriesHTTP", dependencies: ["Repositories"]),
        // The system's libpq; pkg-config finds its headers (/usr/include/postgresql) and links -lpq.
        .systemLibrary(
            name: "CPostgres",
            path: "Sources/CPostgres",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        .target(name: "RepositoriesPostgres", dependencies: ["Repositories", "CPostgres"]),
        // The benchmark suite: `swift run -c release RepositoriesBenchmarks`.
        .executableTarget(
            name: "RepositoriesBenchmarks",
            dependencies: [
                "Repositories", "RepositoriesSQLite", "CSQLite", "RepositoriesPostgres", "CPostgres",
                "RepositoriesHTTP", "RepositoriesTestSupport",
            ]
        ),
        .executableTarget(
            name: "QuickStart",
            dependencies: ["Repositories"],
            path: "Examples/QuickStart"
        ),
        // What the article examples share: the command line, the simulated API behind a
        // network switch, the workspace directory, the progress bar.
        .target(
            name: "ExampleSupport",
            dependencies: ["Repositories", "RepositoriesHTTP"],
            path: "Examples/ExampleSupport"
        ),
        // One executable per article under ../shared/seeds: `swift run Mahsulot`, and so on.
        .executableTarget(
            name: "Mahsulot",
            dependencies: ["Repositories", "ExampleSupport"],
            path: "Examples/Mahsulot"
        ),
        .executableTarget(
            name: "Meteorite",
            dependencies: ["Repositories", "RepositoriesSQLite", "ExampleSupport"],
            path: "Examples/Meteorite"
        ),
        .executableTarget(
            name: "Todo",
            dependencies: ["Repositories", "ExampleSupport"],
            path: "Examples/Todo"
        ),
        .executableTarget(
            name: "Person",
            dependencies: ["Repositories", "ExampleSupport"],
            path: "Examples/Person"
        ),
        .executableTarget(
            name: "NumberFacts",
            dependencies: ["Repositories", "ExampleSupport"],
            path: "Examples/NumberFacts"
        ),
        // Not from an article: two devices edit the same items offline, and a merge settles it.
        .executableTarget(
            name: "SharedList",
            dependencies: ["Repositories", "ExampleSupport"],
            path: "Examples/SharedList"
        ),
        // Not from an article: the server half of sync in Swift (SyncEndpoint), and two devices
        // syncing with it through the change feed, a lost answer resent and applied once.
        .executableTarget(
            name: "SyncServer",
            dependencies: ["Repositories", "RepositoriesHTTP", "RepositoriesSQLite", "ExampleSupport"],
            path: "Examples/SyncServer"
        ),
        // Not from an article: related types (inspections and their findings) in one SyncGroup,
        // and a share extension, a second process, writing the same database.
        .executableTarget(
            name: "Inspections",
            dependencies: ["Repositories", "RepositoriesSQLite", "ExampleSupport"],
            path: "Examples/Inspections"
        ),
        // Not from an article: a small service, two instances on one PostgreSQL table it
        // starts itself (with the tests' private server): coherent caches, an atomic stock
        // decrement, a rolling v1 → v2 migration. `--postgres URL` uses a real server.
        .executableTarget(
            name: "Inventory",
            dependencies: ["Repositories", "RepositoriesPostgres", "RepositoriesTestSupport"],
            path: "Examples/Inventory"
        ),
        // Test support shared by the test targets and the crash fixture: entities with
        // String and UUID IDs, temporary directories, the child-process driver.
        .target(
            name: "RepositoriesTestSupport",
            dependencies: ["Repositories"],
            path: "Tests/RepositoriesTestSupport"
        ),
        // Linked into the test binary only: caps how many test cases run at once (four per
        // core), which keeps the run's memory and descriptors low and its time short.
        .target(name: "TestRunWidth", path: "Tests/TestRunWidth"),
        // A child process the durability tests kill with SIGKILL.
        .executableTarget(
            name: "RepositoriesCrashFixture",
            dependencies: [
                "Repositories", "RepositoriesHTTP", "RepositoriesSQLite", "RepositoriesPostgres",
                "RepositoriesTestSupport",
            ],
            path: "Tests/RepositoriesCrashFixture"
        ),
        .testTarget(
            name: "RepositoriesTests",
            dependencies: [
                "Repositories", "RepositoriesTesting", "RepositoriesTestSupport", "RepositoriesCrashFixture",
                "TestRunWidth",
            ],
            // Store files written by earlier versions of the package, which every later one must read.
            resources: [.copy("Fixtures")]
        ),
        .testTarget(name: "RepositoriesTestingTests", dependencies: ["Repositories", "RepositoriesTesting"]),
        .testTarget(
            name: "RepositoriesHTTPTests",
            dependencies: [
                "RepositoriesHTTP", "RepositoriesSQLite", "RepositoriesTesting", "RepositoriesTestSupport",
                "RepositoriesCrashFixture",
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "RepositoriesSQLiteTests",
            dependencies: [
                "RepositoriesSQLite", "RepositoriesTesting", "RepositoriesTestSupport",
                "RepositoriesCrashFixture",
            ],
            // Databases written by earlier versions of the package, which every later one must read.
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "RepositoriesPostgresTests",
            dependencies: [
                "RepositoriesPostgres", "CPostgres", "RepositoriesHTTP", "RepositoriesTesting",
                "RepositoriesSQLite", "RepositoriesTestSupport", "RepositoriesCrashFixture",
            ]
        ),
        // Every Swift snippet of README.md and Docs/*.md, compiled (a file per guide), and the
        // test that finds each guide's snippets there, so a snippet nobody compiles fails.
        .testTarget(
            name: "DocsSnippetTests",
            dependencies: [
                "Repositories", "RepositoriesTesting", "RepositoriesHTTP", "RepositoriesSQLite",
                "RepositoriesPostgres", "RepositoriesTestSupport",
            ]
        ),
        .testTarget(
            name: "ExampleSupportTests",
            dependencies: ["ExampleSupport", "Repositories", "RepositoriesHTTP", "RepositoriesTesting"]
        ),
        .testTarget(
            name: "MahsulotTests",
            dependencies: [
                "Mahsulot", "ExampleSupport", "Repositories", "RepositoriesTesting",
                "RepositoriesTestSupport",
            ]
        ),
        .testTarget(
            name: "MeteoriteTests",
            dependencies: [
                "Meteorite", "ExampleSupport", "Repositories", "RepositoriesSQLite", "RepositoriesTesting",
                "RepositoriesTestSupport",
            ]
        ),
        .testTarget(
            name: "TodoTests",
            dependencies: [
                "Todo", "ExampleSupport", "Repositories", "RepositoriesTesting", "RepositoriesTestSupport",
            ]
        ),
        .testTarget(
            name: "PersonTests",
            dependencies: [
                "Person", "ExampleSupport", "Repositories", "RepositoriesTesting", "RepositoriesTestSupport",
            ]
        ),
        .testTarget(
            name: "NumberFactsTests",
            dependencies: ["NumberFacts", "ExampleSupport", "Repositories", "RepositoriesTesting"]
        ),
        .testTarget(
            name: "InspectionsTests",
            dependencies: [
                "Inspections", "ExampleSupport", "Repositories", "RepositoriesSQLite",
                "RepositoriesTestSupport",
            ]
        ),
        .testTarget(
            name: "SharedListTests",
            dependencies: [
                "SharedList", "ExampleSupport", "Repositories", "RepositoriesTesting",
                "RepositoriesTestSupport",
            ]
        ),
        .testTarget(
            name: "InventoryTests",
            dependencies: ["Inventory", "Repositories", "RepositoriesTestSupport"]
        ),
        .testTarget(
            name: "SyncServerTests",
            dependencies: [
                "SyncServer", "ExampleSupport", "Repositories", "RepositoriesHTTP", "RepositoriesSQLite",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
