import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

// `elimage run` on inputs with an orientation: every output holds upright pixels and no rotation
// tag; --rotate composes after the input's turn; --no-autorotate takes the input as stored.

@Suite("elimage autorotate", .closesContexts, .serialized)
struct AutorotateToolTests {
    let elimage = BuiltProgram(name: "elimage")

    /// The pattern movie tagged as phones tag portrait video (shown turned 90° clockwise).
    static func portraitMovie(in folder: TemporaryFolder) throws -> String {
        let path = try OrientedMediaFixtures.tagged(try OrientedMediaFixtures.patternMovie(container: "mp4", in: folder),
                                                    rotate: 270, in: folder)
        #expect(try OrientedMediaFixtures.probeRotation(path) == -90)
        return path
    }

    /// The largest difference of R, G, B between `image` and `reference` at the centre of each
    /// 16 x 16 block of the pattern (away from the edges that chroma subsampling blurs).
    static func blockCentreDifference(_ image: RGBAImage, _ reference: RGBAImage) -> Int {
        guard (image.width, image.height) == (reference.width, reference.height) else { return 255 }
        var worst = 0
        for y in stride(from: 8, to: image.height, by: 16) {
            for x in stride(from: 8, to: image.width, by: 16) {
                for channel in 0..<3 { worst = max(worst, abs(Int(image[x, y][channel]) - Int(reference[x, y][channel]))) }
            }
        }
        return worst
    }

    @Test("A movie tagged 90° clockwise becomes upright MP4, H.264, Y4M, PNG and JPEG outputs without a rotation tag",
          arguments: ["out.mp4", "out.h264", "out.y4m", "out.png", "out.jpg"])
    func outputsAreUpright(name: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try Self.portraitMovie(in: folder)
        let reference = try OrientedMediaFixtures.ffmpegFrame(input)  // FFmpeg's autorotated decode
        #expect((reference.width, reference.height) == (48, 64))
        let output = folder.path(name)
        let encoding = name.hasSuffix(".mp4") || name.hasSuffix(".h264") ? ["--preset", "ultrafast", "--crf", "1"] : []
        let result = try await elimage.run(["run", input, "-o", output] + encoding)
        #expect(result.status == 0, "\(result.errors)")

        #expect(try OrientedMediaFixtures.probeRotation(output) == nil, "\(name) carries a display matrix")
        #expect(try OrientedMediaFixtures.probeSize(output) == (48, 64), "\(name) is not stored upright")
        let written = try OrientedMediaFixtures.ffmpegFrame(output)
        let worst = Self.blockCentreDifference(written, reference)
        print("\(name): block centres within \(worst) of FFmpeg's autorotated decode")
        #expect(worst <= (name.hasSuffix(".jpg") ? 8 : 4), "\(name): \(worst)")
        if name.hasSuffix(".png") {
            // Straight from the conversion: every pixel within the two conversions' rounding.
            let png = try PNGFile.read(output)
            #expect(MovieFixtures.compareRGB(png.pixels, reference.pixels).max <= 2)
        }
    }

    @Test("--no-autorotate writes the pictures as stored, as ffmpeg -noautorotate decodes them")
    func noAutorotate() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try Self.portraitMovie(in: folder)
        let output = folder.path("stored.png")
        let result = try await elimage.run(["run", input, "--no-autorotate", "-o", output])
        #expect(result.status == 0, "\(result.errors)")
        let image = try PNGFile.read(output)
        let reference = try OrientedMediaFixtures.ffmpegFrame(input, autorotate: false)
        #expect((image.width, image.height) == (64, 48))
        #expect((reference.width, reference.height) == (64, 48))
        #expect(MovieFixtures.compareRGB(image.pixels, reference.pixels).max <= 2)
    }

    @Test("--rotate 90 on a movie tagged 90° clockwise turns it 180°, as ffmpeg's autorotate then transpose=clock")
    func rotateComposes() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try Self.portraitMovie(in: folder)
        let output = folder.path("half-turn.png")
        let result = try await elimage.run(["run", input, "--rotate", "90", "-o", output])
        #expect(result.status == 0, "\(result.errors)")
        let image = try PNGFile.read(output)
        let reference = try OrientedMediaFixtures.ffmpegFrame(input, filter: "transpose=clock")
        #expect((image.width, image.height) == (64, 48))
        #expect((reference.width, reference.height) == (64, 48))
        #expect(MovieFixtures.compareRGB(image.pixels, reference.pixels).max <= 2)
    }

    @Test("A JPEG with EXIF Orientation 6 is written upright; with --no-autorotate, as stored")
    func exifJPEG() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (jpeg, stored) = try OrientedMediaFixtures.untaggedPattern(in: folder)
        let input = folder.path("photo.jpg")
        try Data(OrientedMediaFixtures.splicingExif(OrientedMediaFixtures.exifTIFF(orientation: 6, littleEndian: false), into: jpeg))
            .write(to: URL(fileURLWithPath: input))

        let upright = folder.path("upright.png")
        var result = try await elimage.run(["run", input, "-o", upright])
        #expect(result.status == 0, "\(result.errors)")
        let image = try PNGFile.read(upright)
        let expected = OrientedMediaFixtures.applyingEXIF(6, to: stored)
        #expect((image.width, image.height) == (32, 48))
        #expect(MovieFixtures.compareRGB(image.pixels, expected.pixels).max <= 3)

        let asStored = folder.path("stored.png")
        result = try await elimage.run(["run", input, "--no-autorotate", "-o", asStored])
        #expect(result.status == 0, "\(result.errors)")
        let plain = try PNGFile.read(asStored)
        #expect((plain.width, plain.height) == (48, 32))
        #expect(MovieFixtures.compareRGB(plain.pixels, stored.pixels).max <= 3)
    }
}
