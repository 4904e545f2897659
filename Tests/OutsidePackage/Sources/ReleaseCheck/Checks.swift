import ELImage
import ELImageCamera
import ELImageDetection
import ELImageKit
import ELImageMedia
import ELImagePreview
import ELImageTesting
import Foundation
import Synchronization

/// A check that did not hold.
struct CheckFailure: Error, CustomStringConvertible {
    let description: String
}

func require(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw CheckFailure(description: message()) }
}

/// ELImageKit, ELImageMedia, ELImage, ELImageDetection: the bundled QR picture opened by its path,
/// through a grayscale filter into a frame stream and a PNG snapshot, with a code detector on a
/// side branch; and the bundled portrait through the face detector.
func checkFileThroughFilterAndDetectors(media: String, output: String, context: RenderContext) async throws {
    let source = try MediaSource.open("\(media)/qrcode.png")
    let codesFound = Mutex<[String]>([])
    let codes = try DetectorOutput(detector: CodeDetector(), settings: .init(waitsForDetector: true)) { metadata in
        codesFound.withLock { $0 += metadata.codes.map(\.text) }
    }
    let grayscale = Grayscale()
    let stream = try FrameStream(format: .rgba)
    let snapshot = Snapshot()
    source.node --> grayscale --> stream
    grayscale --> snapshot
    source.node --> codes

    let stillPath = "\(output)/qrcode-gray.png"
    async let frames = stream.frames.reduce(into: [PixelBuffer]()) { $0.append($1) }
    async let still = snapshot.capture(to: stillPath)
    try await source.run(on: context)
    try await stream.finish()
    await codes.close()

    let received = try await frames
    try require(received.count == 1, "the picture gave \(received.count) frames, not 1")
    let frame = received[0]
    let pixels = frame.data
    let colourful = stride(from: 0, to: pixels.count, by: 4).filter { (offset: Int) -> Bool in
        pixels[offset] != pixels[offset + 1] || pixels[offset + 1] != pixels[offset + 2]
    }
    try require(colourful.isEmpty, "\(colourful.count) pixels of the grayscale frame are not gray")
    _ = try await still
    let saved = try PNGFile.read(stillPath)
    try require((saved.width, saved.height) == (frame.width, frame.height),
                "the snapshot is \(saved.width)x\(saved.height), the frame \(frame.width)x\(frame.height)")
    let texts = codesFound.withLock { $0 }
    try require(texts == ["Thalassiodracon"], "the code detector read \(texts), not [\"Thalassiodracon\"]")
    print("ELImageKit, ELImageMedia, ELImage: \(media)/qrcode.png -> Grayscale -> FrameStream "
          + "(\(frame.width)x\(frame.height), gray) and Snapshot (\(stillPath))")
    print("ELImageDetection: CodeDetector read \"\(texts[0])\"")

    let portrait = try MediaSource.open("\(media)/grace_hopper.jpg")
    let facesFound = Mutex(0)
    let faces = try DetectorOutput(detector: try FaceDetector(), settings: .init(waitsForDetector: true)) { metadata in
        facesFound.withLock { $0 += metadata.faces.count }
    }
    portrait.node --> faces
    try await portrait.run(on: context)
    await faces.close()
    let faceCount = facesFound.withLock { $0 }
    try require(faceCount == 1, "the face detector found \(faceCount) faces in grace_hopper.jpg, not 1")
    print("ELImageDetection: FaceDetector found 1 face in grace_hopper.jpg")
}

/// ELImageTesting and ELImageCamera: the emulated V4L2 camera listed and captured from, until
/// three frames have come out of a frame stream.
func checkEmulatedCamera(context: RenderContext) async throws {
    let io = EmulatedDeviceIO([EmulatedVideoDevice(path: "/dev/video0")])
    let scan = CameraDevice.list(io: io)
    try require(scan.devices.map(\.path) == ["/dev/video0"], "the emulated devices listed are \(scan.devices.map(\.path))")
    let camera = Camera(device: "/dev/video0", settings: CaptureSettings(width: 320, height: 240, framesPerSecond: 30), io: io)
    let stream = try FrameStream(format: .rgba)
    camera --> stream
    try camera.start(on: context)
    var sizes: [String] = []
    for try await frame in stream.frames {  // ends at the camera's end of stream, after finish()
        sizes.append("\(frame.width)x\(frame.height)")
        if sizes.count == 3 { Task { await camera.finish() } }
    }
    try await stream.finish()
    await camera.close()
    try require(sizes.count >= 3 && sizes.allSatisfy { $0 == "320x240" }, "the emulated camera gave frames \(sizes)")
    print("ELImageTesting, ELImageCamera: emulated \(scan.devices[0].card) captured \(sizes.count) frames of 320x240")
}

/// ELImageTesting: a grayscale filter run in an `EmbeddedPipeline`.
func checkEmbeddedPipeline() async throws {
    let pipeline = try EmbeddedPipeline { input in input --> Grayscale() }
    let red = RGBAImage(width: 2, height: 2, pixels: [UInt8](repeating: 0, count: 16).enumerated().map { index, _ in
        index % 4 == 0 || index % 4 == 3 ? 255 : 0
    })
    let out = try await pipeline.send(red)
    let leftovers = await pipeline.finish()
    try require(leftovers.isEmpty, "the embedded pipeline left \(leftovers)")
    guard let gray = out.first else { throw CheckFailure(description: "no frame came out of the embedded pipeline") }
    let pixel = gray[0, 0]
    try require(pixel.x == pixel.y && pixel.y == pixel.z && pixel.x > 0 && pixel.x < 128,
                "red through Grayscale gave \(pixel), not a dark gray")
    print("ELImageTesting: EmbeddedPipeline ran red through Grayscale to gray \(pixel.x)")
}

/// ELImagePreview without a display: the letterbox layout, and the error that says what to do
/// when there is no window system.
func checkPreviewWithoutDisplay() throws {
    let viewport = PreviewScaling.fit.viewport(frame: (width: 1280, height: 720), window: (width: 640, height: 640))
    try require(viewport == (x: 0, y: 140, width: 640, height: 360), "fit 1280x720 into 640x640 gave \(viewport)")
    do {
        _ = try PreviewDisplay.connect(.x11, displayName: "")
        throw CheckFailure(description: "PreviewDisplay.connect with no display name connected")
    } catch let error as PreviewError {
        guard case .noWindowSystem = error else { throw CheckFailure(description: "unexpected preview error: \(error)") }
    }
    print("ELImagePreview: letterbox viewport \(viewport), no display: PreviewError.noWindowSystem")
}

/// ELImage's open roles: a node written here, outside the package, that tells each frame it sees
/// through a `NodeMessenger` (its messages come on the context's events, naming it), and a
/// `FrameWriter` of this package's given to `YUVDataOutput` (it gets the gray planes read back).
func checkUserNodes(media: String) async throws {
    let context = try RenderContext()
    let events = context.events
    let source = try MediaSource.open("\(media)/astronaut.png")
    let watcher = SizeWatcher()
    let luma = LumaWriter()
    let output = try YUVDataOutput(format: .gray8) { luma }
    source.node --> watcher
    source.node --> output
    try await source.run(on: context)
    try await output.finish()
    await context.close()
    let written = luma.frames.withLock { $0 }
    try require(written.count == 1 && written[0].samples > 0 && (20...235).contains(written[0].mean),
                "the user's FrameWriter got \(written)")
    print("ELImage: a FrameWriter of this package got \(written[0].samples) luma samples, mean \(written[0].mean)")
    var told: [String] = []
    for await event in events {
        if let seen = event.message(SizeSeen.self), event.node?.refers(to: watcher) == true { told.append("\(seen)") }
    }
    try require(told.count == 1 && told[0].hasPrefix("saw "), "the user node's messages on the events: \(told)")
    print("ELImage: a node of this package published \"\(told[0])\" on the context's events")
}

/// A writer of this package's own: the mean luma of each gray frame read back.
final class LumaWriter: FrameWriter, Sendable {
    let frames = Mutex<[(samples: Int, mean: Int)]>([])

    func write(_ buffer: inout PixelBuffer, time: Int64, frame number: Int) throws -> FrameWriteVerdict {
        let samples = buffer.width * buffer.height
        let sum = buffer.data.prefix(samples).reduce(0) { $0 + Int($1) }
        frames.withLock { $0.append((samples, sum / max(1, samples))) }
        return .more
    }
}

/// What `SizeWatcher` tells.
struct SizeSeen: NodeMessage {
    let width: Int, height: Int
    var description: String { "saw \(width)x\(height)" }
}

/// A sink of this package's own: it tells the size of each frame it receives.
final class SizeWatcher: ImageInput, Sendable {
    let inputSlots = InputSlots(count: 1)
    private let messenger = NodeMessenger()

    func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        messenger.meet(context, as: self)
        messenger.publish(SizeSeen(width: frame.width, height: frame.height))
    }

    func endOfStream(at index: Int, in context: isolated RenderContext) {}
}

/// ELImage's open filter role: a filter written here that says it reads its input at its own pixel
/// is drawn like the built-in colour filter that does the same (`Exposure(-1)` halves the colour):
/// saturation → it → I420 is one recipe run inside the sink's pack, in as many draws, with the same
/// planes within one level.
func checkUserFilterFuses(media: String) async throws {
    let context = try RenderContext()
    let user = try await halvedPlanes(through: Halve(), media: media, context: context)
    let builtIn = try await halvedPlanes(through: Exposure(-1), media: media, context: context)
    await context.close()
    try require(user.draws == builtIn.draws, "the user's filter drew \(user.draws) times, the built-in one \(builtIn.draws)")
    let worst = zip(user.planes, builtIn.planes).map { abs(Int($0) - Int($1)) }.max() ?? 255
    try require(user.planes.count == builtIn.planes.count && worst <= 1, "the planes differ by up to \(worst)")
    print("ELImage: a filter of this package fused like the built-in one: \(user.draws) draws, planes within \(worst) level")
}

/// The I420 planes of the photo through saturation and `filter`, and the draws they took.
private func halvedPlanes(through filter: any ImageInput & ImageOutput, media: String,
                          context: RenderContext) async throws -> (planes: [UInt8], draws: Int) {
    let source = try MediaSource.open("\(media)/astronaut.png")
    let planes = Mutex<[UInt8]>([])
    let output = try YUVDataOutput(format: .i420) { buffer in planes.withLock { $0 = buffer.data } }
    source.node --> Saturation(1.3) --> filter --> output
    let before = await context.drawCallCount
    try await source.run(on: context)
    let draws = await context.drawCallCount - before
    try await output.finish()
    return (planes.withLock { $0 }, draws)
}

/// A filter of this package's own: halves the colour, reading its input only at the pixel it writes.
final class Halve: SinglePassFilter {
    let pass = ShaderPass(name: "release_check_halve", fragmentShader: """
        #version 300 es
        precision highp float;
        in vec2 textureCoordinate;
        uniform sampler2D inputImageTexture;
        out vec4 fragColor;
        void main() {
            vec4 color = texture(inputImageTexture, textureCoordinate);
            fragColor = vec4(color.rgb * 0.5, color.a);
        }
        """)
    let outputs = OutputTargets()
    var reads: InputReading { .ownPixel }

    func uniforms(forInput input: TextureFrame, outputSize: (width: Int, height: Int)) -> [String: UniformValue] { [:] }
}
