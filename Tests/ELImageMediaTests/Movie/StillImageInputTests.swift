import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

// StillImageInput: a PNG or JPEG delivered once, or as a clip of N frames at a frame rate.

@Suite("Still image input", .closesContexts, .serialized)
struct StillImageInputTests {
    @Test("A PNG repeated 5 times at 25 fps: 5 identical frames stamped n/25 s, then end-of-stream")
    func pngRepeated() async throws {
        let context = try TestContexts.make()
        let still = try StillImageInput(path: MovieFixtures.astronautPNG, options: .init(repeatCount: 5, frameRate: 25))
        #expect(still.size.width == 512 && still.size.height == 512)
        let (output, images) = imageCollector()
        let sink = MovieTimestampSink()
        still --> output
        still --> sink
        try await still.run(on: context)
        #expect(images.values.map(\.timestamp) == (0..<5).map { MediaTime(value: Int64($0), timescale: 25) })
        let png = try PNGFile.read(MovieFixtures.astronautPNG)
        for image in images.values {
            #expect(MovieFixtures.compareRGB(image.pixels, png.pixels, limit: 0).max <= 1)
        }
        #expect(sink.endOfStreamCount == 1)
        #expect(sink.received.allSatisfy { $0.colorSpace == .srgb })
        #expect(still.statistics.produced == 5 && still.statistics.delivered == 5 && still.statistics.dropped == 0)
    }

    @Test("A JPEG delivered once, at time zero")
    func jpegOnce() async throws {
        let context = try TestContexts.make()
        let still = try StillImageInput(path: MovieFixtures.hopperJPEG)
        let (output, images) = imageCollector()
        still --> output
        try await still.run(on: context)
        #expect(images.values.map(\.timestamp) == [.zero])
        let jpeg = try JPEGFile.read(MovieFixtures.hopperJPEG)
        let first = try #require(images.values.first)
        #expect(first.width == 512 && first.height == 600)
        #expect(MovieFixtures.compareRGB(first.pixels, jpeg.pixels).max <= 1)
    }

    @Test("At 30000/1001 fps, frame n is stamped n * 1001/30000 s exactly")
    func fractionalFrameRate() async throws {
        let context = try TestContexts.make()
        let image = RGBAImage(width: 4, height: 4, pixels: [UInt8](repeating: 90, count: 64))
        let still = try StillImageInput(image: image, options: .init(repeatCount: 3, frameRate: Y4MHeader.Ratio(30000, 1001)))
        let sink = MovieTimestampSink()
        still --> sink
        try await still.run(on: context)
        #expect(sink.timestamps == [0, 1001, 2002].map { MediaTime(value: $0, timescale: 30000) })
        #expect(sink.timestamps.map(\.value) == [0, 1001, 2002])
    }

    @Test("cancel() stops a long still clip")
    func cancel() async throws {
        let context = try TestContexts.make()
        let image = RGBAImage(width: 4, height: 4, pixels: [UInt8](repeating: 200, count: 64))
        let still = try StillImageInput(image: image, options: .init(repeatCount: 1_000_000))
        let sink = MovieTimestampSink { [weak still] count in if count == 10 { still?.cancel() } }  // weak: still keeps sink
        still --> sink
        try await still.run(on: context)
        #expect(sink.timestamps.count == 10)
        #expect(sink.endOfStreamCount == 1)
    }

    @Test("Errors: missing file, not an image, no frames, a bad frame rate")
    func errors() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        #expect(throws: ELImageError.io(file: "/nonexistent/still.png", operation: "open", errno: ENOENT, hint: "check the path")) {
            try StillImageInput(path: "/nonexistent/still.png")
        }
        let text = folder.path("still.png")
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: text))
        let error = #expect(throws: ELImageError.self) { try StillImageInput(path: text) }
        #expect(error?.description.contains("\(text): not a PNG or JPEG file") == true, "\(String(describing: error))")
        #expect(throws: ELImageError.self) { try StillImageInput(path: MovieFixtures.astronautPNG, options: .init(repeatCount: 0)) }
        #expect(throws: ELImageError.self) {
            try StillImageInput(path: MovieFixtures.astronautPNG, options: .init(frameRate: Y4MHeader.Ratio(0, 1)))
        }
    }
}
