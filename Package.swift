// swift-tools-version:6.0
import PackageDescription

/// ELImage: a GPU node-graph video pipeline for Linux (EGL + OpenGL ES 3).
///
/// Layers (dependencies point down only):
///   Examples/, Benchmarks/      small programs
///   ELImageMedia                media files: x264/MP4 (libav*), Y4M, PNG, JPEG
///   ELImagePreview              preview windows on X11 (libX11) and Wayland (libwayland-client)
///   ELImageCamera               V4L2 capture and controls (libv4l2)
///   ELImage (core)              RenderContext, ShaderProgram, TextureFrame/FramePool, graph, filters
///   C system libraries          CEGL, CGLES, CGBM, CPNG, CTurboJPEG, CV4L2, CFFmpeg, CX264
let package = Package(
    name: "ELImage",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ELImage", targets: ["ELImage"]),
        .library(name: "ELImageCamera", targets: ["ELImageCamera"]),
        .library(name: "ELImageMedia", targets: ["ELImageMedia"]),
        .library(name: "ELImageDetection", targets: ["ELImageDetection"]),
        .library(name: "ELImagePreview", targets: ["ELImagePreview"]),
        .executable(name: "camera-devices", targets: ["CameraDevicesExample"]),
        .executable(name: "record", targets: ["RecordExample"]),
        .executable(name: "elimage", targets: ["ELImageTool"]),
        .executable(name: "grayscale", targets: ["GrayscaleExample"]),
        .executable(name: "beauty", targets: ["BeautyExample"]),
        .executable(name: "elimage-bench", targets: ["ELImageBench"]),
        .executable(name: "elimage-fuzz", targets: ["ELImageFuzzer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // UnixSignals: SIGINT/SIGTERM as an async sequence, for the graceful stop of a run.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
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
            name: "CTurboJPEG", path: "Sources/CTurboJPEG", pkgConfig: "libturbojpeg",
            providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(
            name: "CV4L2", path: "Sources/CV4L2", pkgConfig: "libv4l2",
            providers: [.apt(["libv4l-dev"])]),
        .systemLibrary(
            name: "CFFmpeg", path: "Sources/CFFmpeg", pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev"])]),
        // x264's pkg-config file adds -DX264_API_IMPORTS (a Windows DLL switch) that SwiftPM rejects
        // with a warning, so this one links through its module map alone; the Makefile installs it.
        .systemLibrary(
            name: "CX264", path: "Sources/CX264",
            providers: [.apt(["libx264-dev"])]),
        .systemLibrary(
            name: "CGBM", path: "Sources/CGBM", pkgConfig: "gbm",
            providers: [.apt(["libgbm-dev"])]),
        .systemLibrary(
            name: "CX11", path: "Sources/CX11", pkgConfig: "x11",
            providers: [.apt(["libx11-dev"])]),

        // C++ only (no Swift import): carries zxing-cpp's pkg-config flags to CDetectors.
        .systemLibrary(
            name: "CZXing", path: "Sources/CZXing", pkgConfig: "zxing",
            providers: [.apt(["libzxing-dev"])]),

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

        // MARK: Camera
        .target(
            name: "ELImageCamera",
            dependencies: ["ELImage", "CV4L2", "CTurboJPEG"],
            path: "Sources/ELImageCamera"),

        // MARK: Media files
        .target(
            name: "ELImageMedia",
            dependencies: ["ELImage", "ELImageCamera", "CPNG", "CTurboJPEG", "CFFmpeg", "CX264",
                           .product(name: "UnixSignals", package: "swift-service-lifecycle")],
            path: "Sources/ELImageMedia"),

        // MARK: Detectors (faces, codes): a C surface over OpenCV and zxing-cpp, and the graph nodes
        .target(
            name: "CDetectors",
            dependencies: ["CZXing"],
            path: "Sources/CDetectors",
            // OpenCV (apt: libopencv-objdetect-dev, opencv-data) without its pkg-config file, which
            // comes with libopencv-dev and lists every OpenCV module (VTK, Qt, GDAL and MPI behind
            // them): linked through it, each program using the detectors loaded ~390 libraries and
            // started in 0.7 s instead of 0.1 s. So: its include folder (what `pkg-config --cflags
            // opencv4` says) and the three libraries used.
            cxxSettings: [.unsafeFlags(["-isystem", "/usr/include/opencv4"])],
            linkerSettings: [.linkedLibrary("opencv_objdetect"), .linkedLibrary("opencv_imgproc"),
                             .linkedLibrary("opencv_core")]),
        .target(
            name: "ELImageDetection",
            dependencies: ["ELImage", "CDetectors"],
            path: "Sources/ELImageDetection"),
        // MARK: Preview windows (X11, Wayland)
        .target(
            name: "ELImagePreview",
            dependencies: ["ELImage", "CX11"],
            path: "Sources/ELImagePreview"),

        // MARK: Programs
        .executableTarget(
            name: "ELImageTool",
            dependencies: ["ELImage", "ELImageMedia", "ELImageCamera", "ELImageDetection", "ELImagePreview",
                           .product(name: "ArgumentParser", package: "swift-argument-parser"),
                           .product(name: "UnixSignals", package: "swift-service-lifecycle")],
            path: "Sources/ELImageTool"),
        .executableTarget(
            name: "GrayscaleExample",
            dependencies: ["ELImage", "ELImageMedia",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Examples/Grayscale"),
        .executableTarget(
            name: "BeautyExample",
            dependencies: ["ELImage", "ELImageMedia",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Examples/Beauty"),
        .executableTarget(
            name: "CameraDevicesExample",
            dependencies: ["ELImage", "ELImageCamera",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Examples/CameraDevices"),
        .executableTarget(
            name: "RecordExample",
            dependencies: ["ELImage", "ELImageMedia", "ELImageCamera",
                           .product(name: "ArgumentParser", package: "swift-argument-parser"),
                           .product(name: "UnixSignals", package: "swift-service-lifecycle")],
            path: "Examples/Record"),
        .executableTarget(
            name: "ELImageBench",
            dependencies: ["ELImage", "ELImageMedia", "ELImageDetection", "CEGL", "CGLES",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Benchmarks/ELImageBench"),

        // MARK: Fuzzing (make fuzz): the parsers' entry points, and the libFuzzer program around them
        .target(
            name: "ELImageFuzzing",
            dependencies: ["ELImage", "ELImageMedia"],
            path: "Sources/ELImageFuzzing"),
        // libFuzzer's driver (LLVMFuzzerRunDriver); linked only into fuzzing builds.
        .systemLibrary(name: "CLibFuzzer", path: "Sources/CLibFuzzer"),
        .executableTarget(
            name: "ELImageFuzzer",
            dependencies: ["ELImageFuzzing", "CLibFuzzer", "CFFmpeg"],
            path: "Sources/ELImageFuzzer"),

        // MARK: Tests
        .testTarget(
            name: "ELImageTests",
            dependencies: ["ELImage", "ELImageMedia", "ELImageCamera", "ELImageFuzzing", "ELImageDetection",
                           "ELImagePreview", "CGLES", "CTurboJPEG"],
            path: "Tests/ELImageTests"),
    ],
    swiftLanguageModes: [.v6]
)
