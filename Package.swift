// swift-tools-version:6.0
import PackageDescription

/// ELImage: a GPU node-graph video pipeline for Linux (EGL + OpenGL ES 3).
///
/// Layers (dependencies point down only):
///   Examples/, Benchmarks/      small programs
///   ELImageCommandLine          the elimage command's text parsers (options' values)
///   ELImageTesting              test support: the emulated V4L2 camera, collectors, EmbeddedPipeline
///   ELImageKit                  MediaSource: any input by its path (cameras and media files)
///   ELImageMedia                media files: x264/MP4 (libav*), Y4M, PNG, JPEG
///   ELImageDetection            faces and codes (OpenCV, zxing-cpp)
///   ELImagePreview              preview windows on X11 (libX11) and Wayland (libwayland-client)
///   ELImageCamera               V4L2 capture and controls (libv4l2)
///   ELImage (core)              RenderContext, ShaderProgram, TextureFrame/FramePool, graph, filters
///   C system libraries          CEGL, CGLES, CGBM, CPNG, CTurboJPEG, CV4L2, CFFmpeg, CX264, CCrypto
let package = Package(
    name: "ELImage",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ELImage", targets: ["ELImage"]),
        .library(name: "ELImageCamera", targets: ["ELImageCamera"]),
        .library(name: "ELImageMedia", targets: ["ELImageMedia"]),
        .library(name: "ELImageDetection", targets: ["ELImageDetection"]),
        .library(name: "ELImagePreview", targets: ["ELImagePreview"]),
        .library(name: "ELImageTesting", targets: ["ELImageTesting"]),
        .library(name: "ELImageKit", targets: ["ELImageKit"]),
        .executable(name: "camera-devices", targets: ["CameraDevicesExample"]),
        .executable(name: "record", targets: ["RecordExample"]),
        .executable(name: "camera-app", targets: ["CameraAppExample"]),
        .executable(name: "elimage", targets: ["ELImageTool"]),
        .executable(name: "grayscale", targets: ["GrayscaleExample"]),
        .executable(name: "beauty", targets: ["BeautyExample"]),
        .executable(name: "elimage-bench", targets: ["ELImageBench"]),
        .executable(name: "elimage-soak", targets: ["ELImageSoak"]),
        .executable(name: "elimage-stream-latency", targets: ["ELImageStreamLatency"]),
        .executable(name: "elimage-fuzz", targets: ["ELImageFuzzer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // UnixSignals: SIGINT/SIGTERM as an async sequence, for the graceful stop of a run.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        // `swift package generate-documentation` (make docs): the products' DocC catalogs.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
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
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev", "libswresample-dev"])]),
        // Sound capture: PulseAudio's client library (PipeWire's pipewire-pulse serves it too). Its
        // pkg-config file adds -D_REENTRANT and -pthread, which SwiftPM rejects with a warning, so it
        // links through its module map alone (headers in /usr/include); the Makefile installs it.
        .systemLibrary(
            name: "CPulse", path: "Sources/CPulse",
            providers: [.apt(["libpulse-dev"])]),
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
        .systemLibrary(
            name: "CWayland", path: "Sources/CWayland", pkgConfig: "wayland-egl",
            providers: [.apt(["libwayland-dev"])]),
        // xdg-shell's client glue: wayland-scanner's output for wayland-protocols' xdg-shell.xml
        // (MIT, licence in the files), committed and regenerated by `make wayland-glue`.
        .target(name: "CXDGShell", dependencies: ["CWayland"], path: "Sources/CXDGShell"),

        // OpenSSL's libcrypto: SHA-256, which checks each detector network when it is loaded.
        .systemLibrary(
            name: "CCrypto", path: "Sources/CCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        // C++ only (no Swift import): carries zxing-cpp's pkg-config flags to CDetectors.
        .systemLibrary(
            name: "CZXing", path: "Sources/CZXing", pkgConfig: "zxing",
            providers: [.apt(["libzxing-dev"])]),
        // C++ only (no Swift import): OpenCV's objdetect, dnn, imgproc and core, and its Haar cascades.
        // Debian's OpenCV has a pkg-config file only in libopencv-dev, which lists every OpenCV
        // module (VTK, Qt, GDAL and MPI behind them): linked through it, each program using the
        // detectors loaded ~390 libraries and started in 0.7 s instead of 0.1 s. So no pkg-config:
        // Sources/COpenCV/opencv4 links to its include folder (what `pkg-config --cflags opencv4`
        // would say), which CDetectors names as a header search path (a path inside the package,
        // so a versioned dependency may use it, unlike an -isystem flag), and CDetectors links
        // the four libraries it uses.
        .systemLibrary(
            name: "COpenCV", path: "Sources/COpenCV",
            providers: [.apt(["libopencv-objdetect-dev", "libopencv-dnn-dev", "opencv-data"])]),

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
            dependencies: ["ELImage", "CPNG", "CTurboJPEG", "CFFmpeg", "CX264", "CPulse",
                           .product(name: "UnixSignals", package: "swift-service-lifecycle")],
            path: "Sources/ELImageMedia"),

        // MARK: Detectors (faces, codes): a C surface over OpenCV and zxing-cpp, and the graph nodes
        .target(
            name: "CDetectors",
            dependencies: ["CZXing", "COpenCV"],
            path: "Sources/CDetectors",
            cxxSettings: [.headerSearchPath("../COpenCV/opencv4")],
            linkerSettings: [.linkedLibrary("opencv_objdetect"), .linkedLibrary("opencv_dnn"),
                             .linkedLibrary("opencv_imgproc"), .linkedLibrary("opencv_core")]),
        .target(
            name: "ELImageDetection",
            dependencies: ["ELImage", "CDetectors", "CCrypto"],
            path: "Sources/ELImageDetection"),
        // MARK: Preview windows (X11, Wayland)
        .target(
            name: "ELImagePreview",
            dependencies: ["ELImage", "CX11", "CWayland", "CXDGShell"],
            path: "Sources/ELImagePreview"),

        // MARK: Any input by its path: the layer that knows both cameras and media files
        .target(
            name: "ELImageKit",
            dependencies: ["ELImage", "ELImageCamera", "ELImageMedia"],
            path: "Sources/ELImageKit"),

        // MARK: Test support (a product of its own: test doubles never ship inside the framework)
        // The emulated V4L2 camera, frame collectors and an in-memory pipeline harness.
        .target(
            name: "ELImageTesting",
            dependencies: ["ELImage", "ELImageCamera", "CV4L2", "CTurboJPEG"],
            path: "Sources/ELImageTesting"),

        // MARK: Programs
        // The `elimage` command's text parsers (durations, sizes, rates, filters, enum values), a
        // library of their own so that the fuzzers reach them (an executable cannot be imported).
        .target(
            name: "ELImageCommandLine",
            dependencies: ["ELImage", "ELImageMedia",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Sources/ELImageCommandLine"),
        .executableTarget(
            name: "ELImageTool",
            dependencies: ["ELImage", "ELImageMedia", "ELImageKit", "ELImageCamera", "ELImageDetection", "ELImagePreview",
                           "ELImageCommandLine",
                           .product(name: "ArgumentParser", package: "swift-argument-parser"),
                           .product(name: "UnixSignals", package: "swift-service-lifecycle")],
            path: "Sources/ELImageTool"),
        .executableTarget(
            name: "GrayscaleExample",
            dependencies: ["ELImage", "ELImageMedia", "ELImageKit",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Examples/Grayscale"),
        .executableTarget(
            name: "BeautyExample",
            dependencies: ["ELImage", "ELImageMedia", "ELImageKit",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Examples/Beauty"),
        .executableTarget(
            name: "CameraDevicesExample",
            dependencies: ["ELImage", "ELImageCamera", "ELImageTesting",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Examples/CameraDevices"),
        .executableTarget(
            name: "RecordExample",
            dependencies: ["ELImage", "ELImageMedia", "ELImageKit", "ELImageCamera",
                           .product(name: "ArgumentParser", package: "swift-argument-parser"),
                           .product(name: "UnixSignals", package: "swift-service-lifecycle")],
            path: "Examples/Record"),
        .executableTarget(
            name: "CameraAppExample",
            dependencies: ["ELImage", "ELImageMedia", "ELImageCamera", "ELImagePreview", "ELImageDetection",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Examples/CameraApp"),
        .executableTarget(
            name: "ELImageBench",
            dependencies: ["ELImage", "ELImageMedia", "ELImageDetection", "ELImageCamera", "ELImageTesting", "CEGL", "CGLES", "CX264",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Benchmarks/ELImageBench"),
        // `make soak`: an hour of camera + drifting live sound, the A/V offset measured over time.
        .executableTarget(
            name: "ELImageSoak",
            dependencies: ["ELImage", "ELImageMedia", "ELImageCamera", "ELImageTesting",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Benchmarks/DriftSoak"),
        // `make stream-latency`: glass-to-glass latency of RTMP and SRT streams on loopback.
        .executableTarget(
            name: "ELImageStreamLatency",
            dependencies: ["ELImage", "ELImageMedia", "ELImageTesting",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Benchmarks/StreamLatency"),

        // MARK: Fuzzing (make fuzz): the parsers' entry points, and the libFuzzer program around them
        .target(
            name: "ELImageFuzzing",
            dependencies: ["ELImage", "ELImageMedia", "ELImageCamera", "ELImageDetection", "ELImageCommandLine"],
            path: "Sources/ELImageFuzzing"),
        // libFuzzer's driver (LLVMFuzzerRunDriver); linked only into fuzzing builds.
        .systemLibrary(name: "CLibFuzzer", path: "Sources/CLibFuzzer"),
        .executableTarget(
            name: "ELImageFuzzer",
            dependencies: ["ELImageFuzzing", "CLibFuzzer", "CFFmpeg"],
            path: "Sources/ELImageFuzzer"),

        // MARK: Tests: one target per module, each in Tests/<target>/ and depending on what it tests
        // (ELImageMedia also reads the core tests' PNG and Y4M fixtures). Helpers the targets share
        // (temporary folders, tools, render contexts closed per test, programs and servers
        // awaited, media fixtures) are in ELImageTestSupport, a target that is not a product.
        .target(
            name: "ELImageTestSupport",
            dependencies: ["ELImage", "ELImageMedia", "ELImageTesting"],
            path: "Tests/ELImageTestSupport"),
        .testTarget(
            name: "ELImageTests",
            dependencies: ["ELImage", "ELImageTesting", "ELImageTestSupport", "ELImageMedia", "CGLES"],
            path: "Tests/ELImageTests"),
        .testTarget(
            name: "ELImageCameraTests",
            dependencies: ["ELImageCamera", "ELImage", "ELImageTesting", "ELImageTestSupport", "ELImageMedia", "CV4L2"],
            path: "Tests/ELImageCameraTests"),
        .testTarget(
            name: "ELImageMediaTests",
            dependencies: ["ELImageMedia", "ELImage", "ELImageFuzzing", "ELImageTesting", "ELImageTestSupport", "CTurboJPEG"],
            path: "Tests/ELImageMediaTests"),
        .testTarget(
            name: "ELImageDetectionTests",
            dependencies: ["ELImageDetection", "ELImage", "ELImageCamera", "ELImageMedia", "ELImageTesting", "ELImageTestSupport",
                           "CDetectors"],
            path: "Tests/ELImageDetectionTests"),
        .testTarget(
            name: "ELImagePreviewTests",
            dependencies: ["ELImagePreview", "ELImage", "ELImageMedia", "ELImageTesting", "ELImageTestSupport", "CX11"],
            path: "Tests/ELImagePreviewTests"),
        .testTarget(
            name: "ELImageKitTests",
            dependencies: ["ELImageKit", "ELImage", "ELImageCamera", "ELImageTestSupport"],
            path: "Tests/ELImageKitTests"),
        .testTarget(
            name: "ELImageTestingTests",
            dependencies: ["ELImageTesting", "ELImage", "ELImageTestSupport"],
            path: "Tests/ELImageTestingTests"),
        // The command-line tool and the examples, run as programs (they are built beside the tests).
        .testTarget(
            name: "ELImageToolTests",
            dependencies: ["ELImage", "ELImageCommandLine", "ELImageMedia", "ELImageTesting", "ELImageTestSupport"],
            path: "Tests/ELImageToolTests"),
        // Whole pipelines across modules: closing them, a soak, programs' exit on signals, and
        // what every module's values print.
        .testTarget(
            name: "ELImageIntegrationTests",
            dependencies: ["ELImage", "ELImageCamera", "ELImageDetection", "ELImageKit", "ELImageMedia",
                           "ELImagePreview", "ELImageTesting", "ELImageTestSupport"],
            path: "Tests/ELImageIntegrationTests"),
    ],
    swiftLanguageModes: [.v6]
)
