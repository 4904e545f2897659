// swift-tools-version:6.0
import PackageDescription

/// ELImage: a GPU node-graph video pipeline for Linux (EGL + OpenGL ES 3).
///
/// Layers (dependencies point down only):
///   Examples/, Benchmarks/      small programs
///   ELImageMedia                media files (PNG, ...)
///   ELImage (core)              RenderContext, ShaderProgram, TextureFrame/FramePool, graph, filters
///   C system libraries          CEGL, CGLES, CGBM, CPNG
let package = Package(
    name: "ELImage",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ELImage", targets: ["ELImage"]),
        .library(name: "ELImageMedia", targets: ["ELImageMedia"]),
        .executable(name: "grayscale", targets: ["GrayscaleExample"]),
        .executable(name: "elimage-bench", targets: ["ELImageBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // MARK: C system libraries (pkg-config name, Debian/Ubuntu package that provides it)
        .systemLibrary(
            name: "CEGL", path: "Sources/CEGL", pkgConfig: "egl",
            providers: [.apt(["libegl-dev", "libegl-mesa0"])]),
        .systemLibrary(
            name: "CGLES", path: "Sources/CGLES", pkgConfig: "glesv2",
            providers: [.apt(["libgles-dev"])]),
        .systemLibrary(
            name: "CPNG", path: "Sources/CPNG", pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"])]),
        .systemLibrary(
            name: "CGBM", path: "Sources/CGBM", pkgConfig: "gbm",
            providers: [.apt(["libgbm-dev"])]),

        // MARK: Shaders embedded at build time
        .executableTarget(name: "ShaderEmbedder", path: "Sources/ShaderEmbedder"),
        .plugin(
            name: "EmbedShaders", capability: .buildTool(),
            dependencies: ["ShaderEmbedder"], path: "Sources/EmbedShadersPlugin"),

        // MARK: Core
        .target(
            name: "ELImage",
            dependencies: ["CEGL", "CGLES", "CGBM"],
            path: "Sources/ELImage",
            plugins: ["EmbedShaders"]),

        // MARK: Media files
        .target(
            name: "ELImageMedia",
            dependencies: ["ELImage", "CPNG"],
            path: "Sources/ELImageMedia"),

        // MARK: Programs
        .executableTarget(
            name: "GrayscaleExample",
            dependencies: ["ELImage", "ELImageMedia",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Examples/Grayscale"),
        .executableTarget(
            name: "ELImageBench",
            dependencies: ["ELImage", "CEGL", "CGLES",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Benchmarks/ELImageBench"),

        // MARK: Tests
        .testTarget(
            name: "ELImageTests",
            dependencies: ["ELImage", "ELImageMedia", "CGLES"],
            path: "Tests/ELImageTests"),
    ],
    swiftLanguageModes: [.v6]
)
