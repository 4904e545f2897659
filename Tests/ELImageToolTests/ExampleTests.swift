import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// The example programs build and run on the bundled media (short runs).
@Suite("Examples", .closesContexts)
struct ExampleTests {
    @Test("grayscale: the bundled clip's first frames become gray PNGs")
    func grayscale() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let pattern = folder.path("gray%d.png")
        let result = try await BuiltProgram(name: "grayscale").run([Repository.path("Examples/Media/bigbuckbunny.mp4"),
                                                               "--frames", "2", "-o", pattern])
        #expect(result.status == 0, "\(result.errors)")
        for index in 0..<2 {
            let image = try PNGFile.read(folder.path("gray\(index).png"))
            #expect(image.width == 1280 && image.height == 720)
            #expect(image[640, 360].x == image[640, 360].z && image[100, 100].y == image[100, 100].x)
        }
    }

    @Test("grayscale: an output pattern with another conversion (%s) is refused naming it; no file is written")
    func grayscaleRefusesPattern() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let pattern = folder.path("gray%s.png")
        let result = try await BuiltProgram(name: "grayscale").run([Repository.path("Examples/Media/bigbuckbunny.mp4"),
                                                               "--frames", "1", "-o", pattern])
        #expect(result.status != 0)
        #expect(result.errors.contains(pattern) && result.errors.contains("%d"), "\(result.errors)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)
    }

    @Test("beauty: the bundled portrait before and after, side by side, the skin smoother, with the skin mask")
    func beauty() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("beauty.png")
        let result = try await BuiltProgram(name: "beauty").run(["-o", output, "--mask"])
        #expect(result.status == 0, "\(result.errors)")
        let image = try PNGFile.read(output)
        #expect(image.width == 1536 && image.height == 600)
        // The mask (third picture): white on the cheek, black on the sky.
        #expect(image[1024 + 200, 248].x >= 200 && image[1024 + 460, 200].x <= 30)
        // A cheek patch (x 180...220, y 250...280 in the 512x600 portrait): less pixel-to-pixel detail after.
        func roughness(offset: Int) -> Int {
            var total = 0
            for y in 250..<280 {
                for x in 180..<220 {
                    total += abs(Int(image[offset + x + 1, y].y) - Int(image[offset + x, y].y))
                }
            }
            return total
        }
        #expect(roughness(offset: 512) < roughness(offset: 0), "after \(roughness(offset: 512)), before \(roughness(offset: 0))")
    }
}
