// swift-tools-version:6.0
import PackageDescription

/// A package outside ELImage that depends on it by version, as a user's package does, and uses
/// every library product. `make release-check` copies it into a temporary folder beside a clone
/// of ELImage's HEAD tagged 1.0.0 (hence the relative URL), then builds and runs it. SwiftPM
/// holds a versioned dependency to stricter rules than the root package (no unsafe build flags):
/// this is how a user meets ELImage.
let package = Package(
    name: "OutsidePackage",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "../ELImage", from: "1.0.0"),
    ],
    targets: [
        .executableTarget(
            name: "ReleaseCheck",
            dependencies: [
                .product(name: "ELImage", package: "ELImage"),
                .product(name: "ELImageCamera", package: "ELImage"),
                .product(name: "ELImageMedia", package: "ELImage"),
                .product(name: "ELImageDetection", package: "ELImage"),
                .product(name: "ELImagePreview", package: "ELImage"),
                .product(name: "ELImageTesting", package: "ELImage"),
                .product(name: "ELImageKit", package: "ELImage"),
            ],
            path: "Sources/ReleaseCheck"),
    ],
    swiftLanguageModes: [.v6]
)
