// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "HotelKit",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "SOAP", targets: ["SOAP"]),
        .library(name: "Hotels", targets: ["Hotels"]),
        .library(name: "Imaging", targets: ["Imaging"]),
        .library(name: "Scheduling", targets: ["Scheduling"]),
        .library(name: "OfflineStore", targets: ["OfflineStore"]),
        .executable(name: "hotels", targets: ["hotels"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
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

        // libjpeg and libpng report errors with longjmp, which needs C frames:
        // these two are small C targets, the only C beyond the module maps.
        .target(name: "CJPEG", linkerSettings: [.linkedLibrary("jpeg")]),
        .target(name: "CPNG", linkerSettings: [.linkedLibrary("png16")]),

        .target(name: "SOAP", dependencies: ["CLibXML2", "CCurl"]),
        .target(
            name: "Imaging",
            dependencies: [
                "CJPEG", "CPNG",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(name: "Hotels", dependencies: ["SOAP"]),
        .target(
            name: "Scheduling",
            dependencies: [
                "SOAP", "Imaging",
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        .target(
            name: "OfflineStore",
            dependencies: ["Hotels", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // The sample server: linked by the executable alone, so library users
        // never pull in a web server.
        .target(
            name: "SampleService",
            dependencies: [
                "SOAP", "Imaging",
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
        .executableTarget(
            name: "hotels",
            dependencies: [
                "Hotels", "Imaging", "Scheduling", "OfflineStore", "SampleService",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        .target(name: "TestSupport", path: "Tests/Support"),
        .testTarget(name: "SOAPTests", dependencies: ["SOAP", "TestSupport"]),
        .testTarget(name: "NetworkTests", dependencies: ["SOAP", "Hotels", "TestSupport", "hotels"]),
        .testTarget(name: "ImagingTests", dependencies: ["Imaging", "TestSupport", "hotels"]),
        .testTarget(name: "HotelsTests", dependencies: ["Hotels", "TestSupport", "hotels"]),
        .testTarget(
            name: "OfflineStoreTests",
            dependencies: ["OfflineStore", "Hotels", "TestSupport", "hotels", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(name: "SchedulingTests", dependencies: ["Scheduling", "Imaging", "SOAP", "TestSupport", "hotels"]),
    ],
    swiftLanguageModes: [.v6]
)
