import ELImage
import ELImageMedia
import ELImageTestSupport
import ELImageTesting
import Foundation
import Testing

/// The still-photo button: a snapshot while recording, equal to what the encoder got.
@Suite("Snapshot", .closesContexts)
struct SnapshotTests {
    @Test("snapshot while recording: PNG equals the encoder's frame, JPEG close to it, no frame lost")
    func whileRecording() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        let failures = failureCollector(on: context)
        let frames = try EncoderFixtures.pannedAstronaut(width: 320, height: 240, count: 30)
        let input = RawDataInput()
        let gray = Grayscale()
        let encoder = try VideoEncoder()
        let snapshot = Snapshot()
        let (collector, images) = imageCollector()
        input --> gray --> encoder
        gray --> snapshot
        gray --> collector  // what the encoder and the snapshot got, read back exactly
        let path = folder.path("recording.mp4")
        try encoder.start(recordingTo: path)

        let pngTime = MediaTime(frame: 10, framesPerSecond: 30), jpegTime = MediaTime(frame: 20, framesPerSecond: 30)
        async let png = snapshot.capture(to: folder.path("ten.png"), at: pngTime)
        async let jpeg = snapshot.capture(to: folder.path("twenty.jpg"), format: .jpeg(quality: 95), at: jpegTime)
        #expect(await waitUntil { snapshot.pendingCount == 2 })
        try await EncoderFixtures.feed(frames, into: input, on: context)
        let (pngCapture, jpegCapture) = try await (png, jpeg)
        let summary = try await encoder.finish()

        #expect(pngCapture.timestamp == pngTime)
        #expect(jpegCapture.timestamp == jpegTime)
        #expect(jpegCapture.format == .jpeg(quality: 95))
        let sent = images.values
        try #require(sent.count == frames.count)
        let written = try PNGFile.read(pngCapture.path)
        #expect(written.width == 320 && written.height == 240)
        let worst = zip(written.pixels, sent[10].pixels).map { abs(Int($0) - Int($1)) }.max() ?? 255
        #expect(worst <= 1, "PNG differs from the frame by up to \(worst) levels")
        let photo = try JPEGFile.read(jpegCapture.path)
        let jpegPSNR = EncoderFixtures.psnr(photo.pixels, sent[20].pixels)
        #expect(jpegPSNR > 35, "JPEG PSNR \(jpegPSNR) dB")

        // The recording lost nothing, and its frame 10 is the snapshot's picture (lossy: PSNR).
        #expect(summary.statistics.encoded == frames.count)
        #expect(summary.statistics.dropped == 0)
        #expect(try EncoderFixtures.decodedFrameCount(path) == frames.count)
        let decoded = try EncoderFixtures.decode(path, pixelFormat: "rgba", extra: ["-vf", "select=eq(n\\,10)", "-frames:v", "1"])
        let encodedPSNR = EncoderFixtures.psnr(written.pixels, decoded)
        #expect(encodedPSNR > 35, "recording's frame 10 vs snapshot: \(encodedPSNR) dB")
        #expect(failures.count == 0)
        print(String(format: "snapshot: PNG max difference %d, JPEG q95 PSNR %.1f dB, MP4 frame 10 vs PNG %.1f dB",
                     worst, jpegPSNR, encodedPSNR))
    }

    @Test("the next frame; a stream that ends first fails the request; cancellation")
    func nextFrameAndEnd() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let frames = try EncoderFixtures.pannedAstronaut(width: 64, height: 48, count: 3)
        let snapshot = Snapshot()
        let pipeline = try EmbeddedPipeline(context: TestContexts.make(), sink: snapshot)
        async let next = snapshot.capture(to: folder.path("next.png"))
        #expect(await waitUntil { snapshot.pendingCount == 1 })
        try await EncoderFixtures.feed(frames, into: pipeline)
        let capture = try await next
        #expect(capture.timestamp == .zero)
        #expect(try PNGFile.read(capture.path).pixels == frames[0].pixels)

        let never = Task { try await snapshot.capture(to: folder.path("never.png"), at: MediaTime(value: 100, timescale: 1)) }
        #expect(await waitUntil { snapshot.pendingCount == 1 })
        try await pipeline.sendEndOfStream()
        await #expect(throws: ELImageError.self) { try await never.value }

        let task = Task { try await snapshot.capture(to: folder.path("cancelled.png")) }
        #expect(await waitUntil { snapshot.pendingCount == 1 })
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(snapshot.pendingCount == 0)
        await #expect(throws: ELImageError.self) { try await snapshot.capture(to: folder.path("x.jpg"), format: .jpeg(quality: 0)) }
    }
}
