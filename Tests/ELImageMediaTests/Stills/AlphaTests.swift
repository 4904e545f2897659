import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// An RGBA PNG's alpha goes through the CLI (and colour filters) untouched and is written where
/// the output can hold it; checked against FFmpeg's decode of the source and of the output.
@Suite("Alpha", .closesContexts)
struct AlphaTests {
    let elimage = BuiltProgram(name: "elimage")

    /// The astronaut photo (128x128) with its own luma as alpha: a natural alpha plane with every
    /// level from transparent to opaque.
    static func alphaPNG(in folder: TemporaryFolder) throws -> String {
        let path = folder.path("alpha.png")
        try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", Repository.path("Examples/Media/astronaut.png"),
                               "-filter_complex", "[0]scale=128:128,format=rgb24,split[c][a];[a]format=gray[g];[c][g]alphamerge,format=rgba",
                               path])
        return path
    }

    static func pixelFormat(of path: String) throws -> String {
        String(decoding: try runTool("ffprobe", ["-v", "error", "-show_entries", "stream=pix_fmt", "-of", "csv=p=0", path]),
               as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("PNG → PNG: alpha and colour exactly as FFmpeg decodes the source; the output is RGBA")
    func pngToPNG() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = try Self.alphaPNG(in: folder)
        let reference = try StillsReference.decode(source, pixelFormat: "rgba")
        #expect(Set(StillsReference.channel(reference, 3, of: 4)).count > 100, "the source's alpha is not varied")
        let output = folder.path("out.png")
        let result = try await elimage.run(["run", source, "-o", output])
        #expect(result.status == 0, "\(result.errors)")
        #expect(try Self.pixelFormat(of: output) == "rgba")
        let written = try StillsReference.decode(output, pixelFormat: "rgba")
        let alphaError = StillsReference.maximumError(StillsReference.channel(written, 3, of: 4),
                                                      StillsReference.channel(reference, 3, of: 4))
        #expect(written.count == reference.count && alphaError == 0, "alpha max error \(alphaError)")
        let colourError = StillsReference.maximumError(written, reference)
        #expect(colourError == 0, "RGBA max error \(colourError)")
    }

    @Test("Colour filters pass alpha through: the alpha plane is unchanged, the colour is not",
          arguments: ["grayscale", "saturation:saturation=0.5", "brightness:brightness=0.1", "hue:degrees=90"])
    func colourFilterKeepsAlpha(filter: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = try Self.alphaPNG(in: folder)
        let reference = try StillsReference.decode(source, pixelFormat: "rgba")
        let output = folder.path("out.png")
        let result = try await elimage.run(["run", source, "--filter", filter, "-o", output])
        #expect(result.status == 0, "\(result.errors)")
        let written = try StillsReference.decode(output, pixelFormat: "rgba")
        let alphaError = StillsReference.maximumError(StillsReference.channel(written, 3, of: 4),
                                                      StillsReference.channel(reference, 3, of: 4))
        #expect(written.count == reference.count && alphaError == 0, "\(filter): alpha max error \(alphaError)")
        // The filter did change the colour (so the output is the filter's, not a copy).
        let colourChange = StillsReference.maximumError(StillsReference.rgb(ofRGBA: written), StillsReference.rgb(ofRGBA: reference))
        #expect(colourChange >= 10, "\(filter): colour changed by at most \(colourChange)")
    }

    @Test("Raw RGBA output carries the source's alpha")
    func rawRGBA() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = try Self.alphaPNG(in: folder)
        let output = folder.path("out.rgba")
        let result = try await elimage.run(["run", source, "--frames", "1", "-o", output])
        #expect(result.status == 0, "\(result.errors)")
        let written = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
        let reference = try StillsReference.decode(source, pixelFormat: "rgba")
        let error = StillsReference.maximumError(written, reference)
        #expect(written.count == reference.count && error == 0, "\(written.count) bytes, max error \(error)")
    }

    @Test("An opaque source gives an RGB PNG, pixel for pixel as FFmpeg decodes the source")
    func opaqueStaysRGB() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = Repository.path("Examples/Media/astronaut.png")
        let output = folder.path("out.png")
        let result = try await elimage.run(["run", source, "-o", output])
        #expect(result.status == 0, "\(result.errors)")
        #expect(try Self.pixelFormat(of: output) == "rgb24")
        let written = try StillsReference.decode(output, pixelFormat: "rgb24")
        let reference = try StillsReference.decode(source, pixelFormat: "rgb24")
        let error = StillsReference.maximumError(written, reference)
        #expect(written.count == reference.count && error == 0, "max error \(error)")
    }
}
