import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// `elimage run --detect motion` and `--pre-record … --trigger motion`, on a clip ffmpeg makes: a
/// still grey picture, and from 2 s (frame 50) a white 40×40 square moving right.
@Suite("elimage run: motion")
struct MotionToolTests {
    let elimage = BuiltProgram(name: "elimage")

    func clip(in folder: TemporaryFolder) throws -> String {
        let path = folder.path("motion.mp4")
        try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                               "color=c=gray:s=320x180:r=25:d=4[bg];color=c=white:s=40x40:r=25:d=4[box];"
                                   + "[bg][box]overlay=x='if(lt(t\\,2)\\,-100\\,20+(t-2)*120)':y=70",
                               "-c:v", "libx264", "-pix_fmt", "yuv420p", "-crf", "12", path])
        return path
    }

    @Test("--detect motion: a JSON line per analysed frame of the event, starting at frame 50 where the square appears")
    func jsonLines() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let result = try await elimage.run(["run", try clip(in: folder), "--detect", "motion"])
        #expect(result.status == 0, "\(result.errors)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 50, "\(lines.count) lines")
        let first = try #require(lines.first)
        // The square (1600 of 57,600 pixels: 2.8 %), where it is.
        #expect(first.hasPrefix("{\"frame\":50,\"time\":2,\"type\":\"motion\",\"event\":\"start\",\"area\":0.02"), "\(first)")
        #expect(first.hasSuffix(",\"bounds\":[20,70,40,40]}"), "\(first)")
        #expect(lines.dropFirst().allSatisfy { $0.contains("\"event\":\"ongoing\"") })
    }

    @Test("--pre-record 1s --trigger motion: the file starts a second before the square appears (frame 25) and holds it from its 26th frame")
    func motionTriggersPreRecord() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("event.mp4")
        let result = try await elimage.run(["run", try clip(in: folder), "-o", output, "--pre-record", "1s", "--trigger", "motion"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("motion at frame 50 (2.000 s): recording from 1.000 s"), "\(result.output)")
        #expect(try EncoderFixtures.decodedFrameCount(output) == 75)
        // The square's middle, (40, 90): grey in the file's frame 24 (source frame 49), white in 25.
        let frames = try EncoderFixtures.decode(output, pixelFormat: "gray", extra: ["-frames:v", "26"])
        let size = 320 * 180
        #expect(frames.count == 26 * size)
        let spot = 90 * 320 + 40
        #expect(abs(Int(frames[24 * size + spot]) - 128) < 12, "frame 24 at the square: \(frames[24 * size + spot])")
        #expect(frames[25 * size + spot] > 220, "frame 25 at the square: \(frames[25 * size + spot])")
    }

    @Test("usage errors: --trigger without --pre-record, a trigger that is not motion, a motion setting out of range")
    func usageErrors() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clip = try clip(in: folder)
        for (arguments, words, status) in [
            (["--trigger", "motion", "-o", folder.path("a.mp4")], "give --pre-record too", Int32(2)),
            (["--trigger", "sound", "--pre-record", "1s", "-o", folder.path("a.mp4")], "use --trigger motion", 2),
            (["--detect", "motion", "--motion-threshold", "0"], "--motion-threshold 0: give 1...255", 2),
            (["--detect", "motion", "--motion-hold", "soon"], "--motion-hold soon", 2),
        ] {
            let result = try await elimage.run(["run", clip] + arguments)
            #expect(result.status == status, "\(arguments): \(result.status)")
            #expect(result.errors.contains(words), "\(arguments): \(result.errors)")
        }
    }
}
