import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

// MovieInput and a container's display matrix (the rotation tag phones write): frames come out
// upright as FFmpeg's own autorotated decode shows them, or as stored when told.

@Suite("Movie orientation", .closesContexts, .serialized)
struct MovieOrientationTests {
    /// The first frame `movie` delivers into a graph, read back as RGBA.
    static func firstFrame(of movie: MovieInput) async throws -> RGBAImage {
        let context = try TestContexts.make()
        let (output, images) = imageCollector()
        movie --> output
        try await movie.run(on: context)
        return try #require(images.values.first)
    }

    /// Checks `image` against FFmpeg's `reference`: the same size, the four corners' colours where
    /// FFmpeg puts them, and every value within 2 levels (lossless 4:4:4 video: only the two YUV to
    /// RGB conversions' rounding differs). Returns the largest difference.
    @discardableResult
    static func expectMatches(_ image: RGBAImage, _ reference: RGBAImage, _ label: String) -> Int {
        #expect((image.width, image.height) == (reference.width, reference.height), "\(label): size")
        guard image.width == reference.width, image.height == reference.height, reference.width > 0 else { return 255 }
        #expect(reference.pixels.count == reference.width * reference.height * 4 && image.pixels.count == reference.pixels.count)
        for (x, y) in [(0, 0), (image.width - 1, 0), (0, image.height - 1), (image.width - 1, image.height - 1)] {
            let (ours, theirs) = (image[x, y], reference[x, y])
            let close = (0..<3).allSatisfy { abs(Int(ours[$0]) - Int(theirs[$0])) <= 2 }
            #expect(close, "\(label): corner \(x),\(y) is \(ours), FFmpeg shows \(theirs)")
        }
        let difference = MovieFixtures.compareRGB(image.pixels, reference.pixels)
        print("\(label): max \(difference.max), mean \(difference.mean) against FFmpeg")
        #expect(difference.max <= 2, "\(label): mean \(difference.mean), max \(difference.max)")
        return difference.max
    }

    @Test("An MP4 or MOV with a rotation tag comes out turned as FFmpeg's autorotated decode, sizes swapped for 90/270",
          arguments: ["mp4", "mov"], [90, 180, 270])
    func taggedMovieIsUpright(container: String, degrees: Int) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try OrientedMediaFixtures.tagged(try OrientedMediaFixtures.patternMovie(container: container, in: folder),
                                                    rotate: degrees, in: folder)
        // The side data is in the file (ffprobe reads it), and the pictures are stored unturned.
        let rotation = try #require(try OrientedMediaFixtures.probeRotation(path), "no display matrix in \(path)")
        #expect(try OrientedMediaFixtures.probeSize(path) == (64, 48))

        let movie = try MovieInput(path: path)
        // ffprobe's rotation is counter-clockwise: the clockwise turn that shows it upright is the rest of the circle.
        let clockwise = try #require(Orientation.Rotation(rawValue: (360 - rotation) % 360))
        #expect(movie.sourceOrientation == Orientation(rotation: clockwise), "ffprobe rotation \(rotation)")
        #expect(movie.info.displayMatrix != nil)
        let reference = try OrientedMediaFixtures.ffmpegFrame(path)
        #expect(reference.width == (degrees == 180 ? 64 : 48))  // FFmpeg turned it
        #expect(movie.outputSize == (reference.width, reference.height))
        let image = try await Self.firstFrame(of: movie)
        Self.expectMatches(image, reference, "\(container) rotate=\(degrees)")
    }

    @Test("autorotate off: an MP4 tagged 90 comes out as stored, as ffmpeg -noautorotate decodes it")
    func autorotateOff() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try OrientedMediaFixtures.tagged(try OrientedMediaFixtures.patternMovie(container: "mp4", in: folder),
                                                    rotate: 90, in: folder)
        let movie = try MovieInput(path: path, options: .init(autorotate: false))
        #expect(movie.sourceOrientation != .up)  // still reported
        #expect(movie.orientation == .up)
        let reference = try OrientedMediaFixtures.ffmpegFrame(path, autorotate: false)
        #expect((reference.width, reference.height) == (64, 48))
        Self.expectMatches(try await Self.firstFrame(of: movie), reference, "rotate=90, no autorotate")
        // And it is not what the autorotated decode shows.
        let turned = try OrientedMediaFixtures.ffmpegFrame(path)
        #expect((turned.width, turned.height) == (48, 64))
    }

    @Test("A further 90° turn composes after the file's: a file shown 90° clockwise comes out turned 180°, as ffmpeg's autorotate then transpose=clock")
    func rotationComposesAfterTag() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = try OrientedMediaFixtures.patternMovie(container: "mp4", in: folder)
        // FFmpeg 5.1's muxer writes rotate=270 as the matrix phones write for portrait video:
        // ffprobe rotation -90, shown turned 90° clockwise.
        let path = try OrientedMediaFixtures.tagged(source, rotate: 270, in: folder)
        #expect(try OrientedMediaFixtures.probeRotation(path) == -90)
        let movie = try MovieInput(path: path, options: .init(orientation: Orientation(rotation: .clockwise90)))
        #expect(movie.orientation == Orientation(rotation: .rotate180))
        let reference = try OrientedMediaFixtures.ffmpegFrame(path, filter: "transpose=clock")
        #expect((reference.width, reference.height) == (64, 48))
        // 180° of the stored picture, as ffmpeg's hflip,vflip of the untagged file shows it.
        let turnedTwice = try OrientedMediaFixtures.ffmpegFrame(source, filter: "hflip,vflip")
        #expect(MovieFixtures.compareRGB(reference.pixels, turnedTwice.pixels).max <= 2)
        Self.expectMatches(try await Self.firstFrame(of: movie), reference, "rotate=270 then 90° clockwise")
    }

    @Test("A file without a display matrix: orientation up, frames as stored")
    func untaggedIsUnchanged() throws {
        let movie = try MovieInput(path: MovieFixtures.bunny)
        #expect(movie.info.displayMatrix == nil)
        #expect(movie.sourceOrientation == .up && movie.orientation == .up)
        #expect(movie.outputSize == (1280, 720))
    }

    @Test("Display matrices as libavutil/display.h defines them: quarter turns, a mirror, scales; other angles are not turned")
    func displayMatrixOrientation() throws {
        let one: Int32 = 1 << 16, w: Int32 = 1 << 30
        func matrix(_ a: Int32, _ b: Int32, _ c: Int32, _ d: Int32) -> DisplayMatrix? {
            DisplayMatrix([a, b, 0, c, d, 0, 0, 0, w])
        }
        // A stored pixel (p, q) is shown at (a p + c q, b p + d q), y down.
        #expect(matrix(one, 0, 0, one)?.orientation == .up)
        #expect(matrix(0, one, -one, 0)?.orientation == Orientation(rotation: .clockwise90))   // x axis points down
        #expect(matrix(-one, 0, 0, -one)?.orientation == Orientation(rotation: .rotate180))
        #expect(matrix(0, -one, one, 0)?.orientation == Orientation(rotation: .clockwise270))
        #expect(matrix(-one, 0, 0, one)?.orientation == Orientation(mirrored: true))            // p → -p
        #expect(matrix(one, 0, 0, -one)?.orientation == Orientation(rotation: .rotate180, mirrored: true))  // q → -q
        #expect(matrix(0, one, one, 0)?.orientation == Orientation(rotation: .clockwise90, mirrored: true))  // transpose
        #expect(matrix(0, -one, -one, 0)?.orientation == Orientation(rotation: .clockwise270, mirrored: true))  // transverse
        #expect(matrix(2 * one, 0, 0, one)?.orientation == .up)                                 // a scale is no turn
        let cos45 = Int32(Double(one) * 0.7071)
        #expect(matrix(cos45, cos45, -cos45, cos45)?.orientation == nil)                        // 45°
        #expect(matrix(0, 0, 0, 0)?.orientation == nil)
        #expect(DisplayMatrix([1, 2, 3]) == nil)
    }
}
