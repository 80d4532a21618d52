// swift-tools-version: 6.1
// HotelKit's benchmarks: a package of their own, depending on HotelKit by
// path, so neither `make test` nor HotelKit's users ever build them.
import PackageDescription

let package = Package(
    name: "HotelKitBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "HotelKit", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    ],
    targets: [
        // In-process throughput: `swift package benchmark` (see BENCHMARKS.md).
        .executableTarget(
            name: "ParserBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Hotels", package: "HotelKit"),
            ],
            path: "Benchmarks/ParserBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "ImagingBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Imaging", package: "HotelKit"),
            ],
            path: "Benchmarks/ImagingBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "StoreBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Hotels", package: "HotelKit"),
                .product(name: "OfflineStore", package: "HotelKit"),
            ],
            path: "Benchmarks/StoreBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // hotels parse --count without the sample server, for valgrind.
        .executableTarget(
            name: "parse-count",
            dependencies: [.product(name: "Hotels", package: "HotelKit")],
            path: "Sources/ParseCount"
        ),
        // scripts/compare workers: no-op jobs through the job queue, by claimer count.
        .executableTarget(
            name: "queue-throughput",
            dependencies: [.product(name: "PostgresStore", package: "HotelKit"), .product(name: "Workers", package: "HotelKit")],
            path: "Sources/QueueThroughput"
        ),
        // scripts/compare store: open a store and read a list's first 20 rows, in process.
        .executableTarget(
            name: "first-rows",
            dependencies: [.product(name: "OfflineStore", package: "HotelKit"), .product(name: "PostgresStore", package: "HotelKit")],
            path: "Sources/FirstRows"
        ),
        // scripts/compare dashboard: the dashboard's API pages of a long list, in process (no socket).
        .executableTarget(
            name: "dashboard-pages",
            dependencies: [
                .product(name: "Dashboard", package: "HotelKit"), .product(name: "Runtime", package: "HotelKit"),
                .product(name: "PostgresStore", package: "HotelKit"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            path: "Sources/DashboardPages"
        ),
        // scripts/compare browse: the view's frames at 100×30, built and diffed, in process.
        .executableTarget(
            name: "browse-frames",
            dependencies: [.product(name: "Browsing", package: "HotelKit"), .product(name: "Imaging", package: "HotelKit")],
            path: "Sources/BrowseFrames"
        ),
        // scripts/compare match: a city matched again from its last run kept in memory, beside a full match, in process.
        .executableTarget(
            name: "rematch-store",
            dependencies: [
                .product(name: "Matching", package: "HotelKit"), .product(name: "OfflineStore", package: "HotelKit"),
                .product(name: "Runtime", package: "HotelKit"), .product(name: "Hotels", package: "HotelKit"),
            ],
            path: "Sources/RematchStore"
        ),
        // A peer for scripts/compare: FoundationXML's XMLParser building the same records.
        .executableTarget(name: "foundation-xml-baseline", path: "Sources/FoundationXMLBaseline"),
    ],
    swiftLanguageModes: [.v6]
)
