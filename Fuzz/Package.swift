// swift-tools-version: 6.1
// libFuzzer targets for HotelKit, a package of its own so `make test` never
// builds it. Build and run them with scripts/fuzz (Sources/Runtime/Runtime.docc/Hardening.md).
import PackageDescription

let package = Package(
    name: "HotelKitFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "HotelKit", path: "..")],
    targets: [
        .target(name: "FuzzCheck"),
        .executableTarget(name: "fuzz-image", dependencies: ["FuzzCheck", .product(name: "Imaging", package: "HotelKit")]),
        .executableTarget(name: "fuzz-filter-spec", dependencies: ["FuzzCheck", .product(name: "Imaging", package: "HotelKit")]),
        .executableTarget(name: "fuzz-parse", dependencies: ["FuzzCheck", .product(name: "Hotels", package: "HotelKit")]),
        .executableTarget(name: "fuzz-profile", dependencies: ["FuzzCheck", .product(name: "Hotels", package: "HotelKit")]),
        .executableTarget(name: "fuzz-scroll-script", dependencies: ["FuzzCheck", .product(name: "Fetching", package: "HotelKit")]),
        .executableTarget(
            name: "fuzz-wsdl",
            dependencies: [
                "FuzzCheck", .product(name: "WSDL", package: "HotelKit"), .product(name: "Hotels", package: "HotelKit"),
                .product(name: "HTTP", package: "HotelKit"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
