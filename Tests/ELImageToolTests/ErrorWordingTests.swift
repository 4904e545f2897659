import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// The CLI's errors speak the user's language: what failed, where, what to do, and no names of the
/// library's types.
@Suite("elimage: error wording", .closesContexts)
struct ErrorWordingTests {
    let elimage = BuiltProgram(name: "elimage")

    /// Names of library types (and node names such as "Crop#3f2a") that must not reach a CLI user.
    static let internalWords = ["MovieInput", "StillImageInput", "VideoEncoder", "MovieDecoder", "ELImageError",
                                "TurboJPEG", "Crop#", "failed: "]

    func expectUserWords(_ result: (status: Int32, output: String, errors: String), _ words: [String]) {
        #expect(result.status == 1, "\(result.errors)")
        for word in words { #expect(result.errors.contains(word), "missing '\(word)' in: \(result.errors)") }
        for word in Self.internalWords { #expect(!result.errors.contains(word), "'\(word)' in: \(result.errors)") }
    }

    @Test("A crop outside the picture: names the rectangle and the WxH frame")
    func cropOutside() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clip = folder.path("clip.mp4")
        try writeTestPattern(to: clip, frames: 5, ["-c:v", "libx264"])
        for output in ["out.mp4", "out.y4m"] {
            expectUserWords(try await elimage.run(["run", clip, "--filter", "crop:x=200,y=10,width=20,height=20", "-o", folder.path(output)]),
                            ["crop", "x=200", "outside the 96x64 frame", "clip.mp4"])
        }
    }

    @Test("An input without a decodable frame: says so, not that an encoder got nothing")
    func noDecodableFrame() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clip = folder.path("clip.mkv")
        try writeTestPattern(to: clip, frames: 25, ["-c:v", "libx264"])
        // The header and stream description only: ffprobe finds the stream but no packet.
        let headerOnly = folder.path("header.mkv")
        try Data(try Data(contentsOf: URL(fileURLWithPath: clip)).prefix(1500)).write(to: URL(fileURLWithPath: headerOnly))
        let packets = String(decoding: try runTool("ffprobe", ["-v", "quiet", "-select_streams", "v:0", "-show_entries", "packet=pts",
                                                               "-of", "csv=p=0", headerOnly]), as: UTF8.self)
        #expect(packets.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "ffprobe reads packets: \(packets)")
        expectUserWords(try await elimage.run(["run", headerOnly, "-o", folder.path("out.mp4")]),
                        ["header.mkv has no frame that could be decoded", "nothing was written"])
    }

    @Test("Images and movies with the wrong name: says which name to give")
    func wrongNames() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let text = folder.path("notes.png")
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: text))
        expectUserWords(try await elimage.run(["run", text, "-o", folder.path("out.y4m")]), ["notes.png", "not a PNG or JPEG file", ".mp4"])
        let picture = folder.path("picture.mp4")
        try FileManager.default.copyItem(atPath: MovieFixtures.astronautPNG, toPath: picture)
        expectUserWords(try await elimage.run(["run", picture, "-o", folder.path("out.y4m")]),
                        ["picture.mp4", "still image", "give it a .png or .jpg name"])
    }
}
