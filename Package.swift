// swift-tools-version: 6.1
import PackageDescription

let logging = Target.Dependency.product(name: "Logging", package: "swift-log")
let serviceLifecycle = Target.Dependency.product(name: "ServiceLifecycle", package: "swift-service-lifecycle")

let package = Package(
    name: "HotelKit",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "HTTP", targets: ["HTTP"]),
        .library(name: "SOAP", targets: ["SOAP"]),
        .library(name: "Hotels", targets: ["Hotels"]),
        .library(name: "Imaging", targets: ["Imaging"]),
        .library(name: "Scheduling", targets: ["Scheduling"]),
        .library(name: "Logos", targets: ["Logos"]),
        .library(name: "OfflineStore", targets: ["OfflineStore"]),
        .library(name: "WSDL", targets: ["WSDL"]),
        .library(name: "Fetching", targets: ["Fetching"]),
        .library(name: "AtomicFiles", targets: ["AtomicFiles"]),
        .library(name: "Failures", targets: ["Failures"]),
        .library(name: "PostgresStore", targets: ["PostgresStore"]),
        .library(name: "Runtime", targets: ["Runtime"]),
        .library(name: "Workers", targets: ["Workers"]),
        .library(name: "Browsing", targets: ["Browsing"]),
        .library(name: "Console", targets: ["Console"]),
        .library(name: "Dashboard", targets: ["Dashboard"]),
        .library(name: "Matching", targets: ["Matching"]),
        .executable(name: "hotels", targets: ["hotels"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.9.0"),
    ],
    targets: [
        // C shims, one per system library: a module map plus a header of small
        // static inline wrappers for what Swift cannot call (macros, variadics).
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),

        // libchafa paints logos as terminal graphics (kitty, sixel, iTerm2) or Unicode symbols.
        .systemLibrary(
            name: "CChafa",
            pkgConfig: "chafa",
            providers: [.apt(["libchafa-dev"])]
        ),

        // glibc's malloc_trim, which Matching calls between its stages.
        .systemLibrary(name: "CMalloc"),

        // libjpeg and libpng report errors with longjmp, which needs C frames:
        // these two are small C targets, the only C beyond the module maps.
        .target(name: "CJPEG", linkerSettings: [.linkedLibrary("jpeg")]),
        .target(name: "CPNG", linkerSettings: [.linkedLibrary("png16")]),
        // The lock every target uses: a pthread mutex, which ThreadSanitizer sees, and Locked, its shareable box.
        .target(name: "Locking"),
        // Every file that is replaced is replaced through this: temporary file, fsync, rename, fsync of the folder.
        .target(name: "AtomicFiles", dependencies: ["Failures"]),
        // What an error means (ErrorMeaning): its sysexits status, a hint, whether a retry may help. Each error
        // type says its own, as a MeaningfulError in its own module; every library that throws one depends on this.
        .target(name: "Failures"),
        // A deterministic random source, for the sample catalogue and generated scroll sessions.
        .target(name: "Seeding"),

        // Along the data path: HTTP → SOAP → Hotels (records, the client);
        // Imaging → Scheduling (work queue, window loader) → Logos (the logo
        // pipeline); OfflineStore (the store, ListSync) on Hotels; Fetching (the
        // list job: pages, store, logos, sinks) on all of them. Nothing points back.
        .target(name: "HTTP", dependencies: ["CCurl", "Failures", "Locking", logging]),
        .target(name: "SOAP", dependencies: ["CLibXML2", "Failures", "HTTP"]),
        .target(
            name: "Hotels",
            dependencies: ["Failures", "SOAP", "HTTP", "Locking", logging, .product(name: "Crypto", package: "swift-crypto")]),
        // From a vendor's WSDL to a profile: loads the set, reads it, guesses a profile.
        .target(name: "WSDL", dependencies: ["AtomicFiles", "Failures", "SOAP", "HTTP", "Hotels"]),
        .target(
            name: "Imaging",
            dependencies: [
                "AtomicFiles", "CJPEG", "CPNG", "Failures", "Locking",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "Scheduling",
            dependencies: ["Imaging", "Locking", .product(name: "DequeModule", package: "swift-collections")]
        ),
        .target(name: "Logos", dependencies: ["Failures", "HTTP", "Imaging", "Locking", "Scheduling", logging]),
        .target(
            name: "OfflineStore",
            dependencies: [
                // HTTP: ListSync tells an offline service by its TransportError. Undeclared, a change to that
                // enum left OfflineStore built against the old one, and the process crashed.
                "Failures", "HTTP", "Hotels", "Imaging", "Matching", logging, .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, as GRDB links it: the store binds new rows' values with it.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        // The shared store: the same lists and logo index in PostgreSQL, for many processes.
        .target(
            name: "PostgresStore",
            dependencies: [
                "AtomicFiles", "Hotels", "Imaging", "Locking", "Matching", "OfflineStore", logging,
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // Only for the pool's errors, which postgres-nio hands on as they are (StoreFailure).
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"), .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "Fetching",
            dependencies: [
                "AtomicFiles", "Failures", "SOAP", "Hotels", "Imaging", "Locking", "Scheduling", "Logos", "OfflineStore",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // What a run needs, assembled once (HotelRuntime): the store from its location, one transport,
        // the clients, the logo pipelines, several lists at once. Everything above builds through it.
        .target(
            name: "Runtime",
            dependencies: [
                "Fetching", "HTTP", "Hotels", "Imaging", "Locking", "Logos", "Matching", "OfflineStore", "PostgresStore", "SOAP",
                logging, serviceLifecycle, .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        // Workers: lists as jobs in the shared store, claimed, leased, fenced and retried.
        .target(
            name: "Workers",
            dependencies: [
                "Failures", "Fetching", "HTTP", "Hotels", "Imaging", "Locking", "Logos", "Matching", "OfflineStore", "PostgresStore",
                "Runtime", logging, serviceLifecycle, .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // The tutorials' table view in a real terminal: raw mode, keys and the
        // mouse, frames written as diffs, logos painted by libchafa; the list
        // and its logos through Fetching, Scheduling and Logos.
        .target(
            name: "Browsing",
            dependencies: [
                "CChafa", "Failures", "Fetching", "Hotels", "Imaging", "Locking", "Logos", "OfflineStore", "Runtime", "Scheduling",
            ]
        ),
        // The simulation and the sample server: linked by the executable
        // alone, so library users never pull in a web server.
        .target(
            name: "Simulation",
            dependencies: [
                "AtomicFiles", "SOAP", "Hotels", "Imaging", "Locking", "Scheduling", "Seeding", "Logos", "OfflineStore", "Fetching",
                "Runtime", logging,
            ]),
        // What a command-line program over HotelKit prints with: errors with their hints and sysexits
        // statuses, secrets redacted; buffered standard output; a progress line on a terminal.
        .target(name: "Console", dependencies: ["Failures", "Hotels", "Locking", logging]),
        // The web side, on Hummingbird: the dashboard (lists, a list's hotels, the queue; JSON under /api/) and the
        // Prometheus endpoint beside a worker. Linked by the executable alone.
        .target(
            name: "Dashboard",
            dependencies: [
                "Failures", "Hotels", "Locking", "Matching", "OfflineStore", "PostgresStore", "Runtime", "Workers", logging,
                serviceLifecycle,
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Metrics", package: "swift-metrics"), .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        // One hotel, one property: which records of several suppliers' lists are one hotel. Normalises, learns
        // name frequencies, blocks, scores pairs with explanations, clusters, keeps ids stable; the stores keep
        // the catalogue (PropertyStorage) and Runtime's Catalogue runs it over a store.
        .target(
            name: "Matching",
            dependencies: ["CMalloc", "Failures", "Hotels", "Locking", .product(name: "Crypto", package: "swift-crypto")]),
        // Issue 47's test data: a world of true hotels across cities, and five suppliers' records of it with the truth
        // (`hotels serve --supplier N`, and the matching tests' synthetic city).
        .target(name: "SupplierWorlds", dependencies: ["Hotels", "Seeding"]),
        .target(
            name: "SampleService",
            dependencies: [
                "AtomicFiles", "SOAP", "Imaging", "Locking", "Seeding", "Hotels", "SupplierWorlds",
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The command-line tool, a shell over the libraries. Its folder is not
        // Sources/hotels, which would collide with Sources/Hotels where case is ignored.
        .executableTarget(
            name: "hotels",
            dependencies: [
                "AtomicFiles", "Failures", "HTTP", "SOAP", "Hotels", "Imaging", "Locking", "Scheduling", "Seeding", "Logos", "OfflineStore",
                "Fetching", "PostgresStore", "Runtime", "Workers", "Browsing", "Console", "Dashboard", "Matching", "Simulation",
                "SampleService",
                "WSDL", logging, serviceLifecycle,
                .product(name: "ArgumentParser", package: "swift-argument-parser"), .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Sources/HotelsCLI"
        ),

        // Small programs that use the libraries as a user would; `make test` builds them.
        .executableTarget(
            name: "FetchCity", dependencies: ["Failures", "Hotels", "Imaging", "Fetching", "Runtime"], path: "Examples/FetchCity"),
        .executableTarget(name: "FleetWorker", dependencies: ["Console", "Runtime", "Workers"], path: "Examples/FleetWorker"),
        .executableTarget(name: "ParseResponse", dependencies: ["Hotels"], path: "Examples/ParseResponse"),
        .executableTarget(name: "Thumbnail", dependencies: ["Logos", "Imaging"], path: "Examples/Thumbnail"),

        .target(
            name: "TestSupport",
            dependencies: ["HTTP", "Hotels", "Locking", "Logos", logging, .product(name: "Crypto", package: "swift-crypto")],
            path: "Tests/Support"),
        // What tests on the tests' PostgreSQL share; apart from TestSupport, so that other suites do not compile against PostgresNIO.
        .target(name: "PostgresTestSupport", dependencies: ["Hotels", "PostgresStore"], path: "Tests/PostgresSupport"),
        .testTarget(name: "SOAPTests", dependencies: ["SOAP", "Seeding", "TestSupport"]),
        .testTarget(name: "NetworkTests", dependencies: ["HTTP", "Locking", "SOAP", "Hotels", "TestSupport", "hotels"]),
        .testTarget(name: "ImagingTests", dependencies: ["Imaging", "TestSupport", "hotels"]),
        .testTarget(name: "HotelsTests", dependencies: ["HTTP", "Hotels", "TestSupport", "hotels", logging]),
        .testTarget(name: "LogosTests", dependencies: ["HTTP", "Locking", "Logos", "Imaging", "Scheduling", "TestSupport"]),
        .testTarget(
            name: "OfflineStoreTests",
            dependencies: [
                "OfflineStore", "Hotels", "HTTP", "Imaging", "Logos", "TestSupport", "hotels",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(name: "WSDLTests", dependencies: ["WSDL", "Hotels", "HTTP", "SOAP", "TestSupport", "hotels"]),
        .testTarget(
            name: "FetchingTests",
            dependencies: [
                "AtomicFiles", "Failures", "Fetching", "Locking", "OfflineStore", "Hotels", "HTTP", "SOAP", "Imaging", "Logos",
                "Matching", "Scheduling", "TestSupport", "WSDL",
            ]
        ),
        // The store suite on SQLite and on a PostgreSQL server the tests start (TestSupport's TestPostgres).
        .testTarget(
            name: "PostgresStoreTests",
            dependencies: [
                "PostgresStore", "OfflineStore", "Hotels", "Imaging", "Logos", "Matching", "Runtime", "Seeding", "SupplierWorlds",
                "PostgresTestSupport", "TestSupport", "hotels",
            ]),
        // The worker loop on fakes and a real server; the hotels worker processes against hotels serve.
        .testTarget(
            name: "DashboardTests",
            dependencies: [
                "Dashboard", "Fetching", "HTTP", "Hotels", "Imaging", "Locking", "Matching", "OfflineStore",
                "PostgresStore", "Runtime",
                "SampleService", "TestSupport", "Workers", "hotels",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            // The Chromium drivers, run by path with python3: not part of the build.
            exclude: ["Browser"]),
        .testTarget(
            name: "WorkersTests",
            dependencies: [
                "Workers", "PostgresStore", "OfflineStore", "Hotels", "HTTP", "Locking", "Runtime", "PostgresTestSupport", "TestSupport",
                "hotels",
                serviceLifecycle,
            ]),
        .testTarget(
            name: "SchedulingTests",
            dependencies: ["Locking", "Scheduling", "Logos", "Imaging", "HTTP", "Simulation", "TestSupport", "hotels"]),
        // The hard cases by name, and a synthetic city of suppliers with known truth.
        .testTarget(name: "MatchingTests", dependencies: ["Matching", "Hotels", "Seeding", "SupplierWorlds"]),
        // The view's parts on their own, and hotels browse in tmux against hotels serve.
        .testTarget(name: "BrowsingTests", dependencies: ["Browsing", "Imaging", "Scheduling", "Hotels", "TestSupport", "hotels"]),
    ],
    swiftLanguageModes: [.v6]
)
