import ELImage
import ELImageMedia
import Foundation
import Testing

/// A portrait with the patches the beauty filter is judged on. The rectangles were picked by
/// looking at the pictures (converted to PNG and enlarged): skin patches are plain skin (no brows,
/// eyes, hair or highlights' edges), edge patches straddle strong edges that are not skin.
struct Portrait: Sendable, CustomTestStringConvertible {
    let name: String
    let load: @Sendable () throws -> RGBAImage
    let skin: [PatchRect]
    let edges: [PatchRect]
    /// Reported in the docs but not asserted.
    let extra: [PatchRect]
    /// The crop shown in docs/beauty.
    let crop: PatchRect
    var testDescription: String { name }

    static let astronaut = Portrait(
        name: "astronaut", load: { try Photos.astronaut() },
        skin: [
            PatchRect(name: "left cheek", x: 186, y: 109, width: 17, height: 17),   // below the left eye, beside the nose
            PatchRect(name: "right cheek", x: 243, y: 111, width: 20, height: 17),  // below the right eye
        ],
        edges: [
            PatchRect(name: "left eye", x: 193, y: 96, width: 21, height: 9),       // lashes, iris, eye white
            PatchRect(name: "right eye", x: 235, y: 98, width: 24, height: 9),
            PatchRect(name: "hair outline, top", x: 200, y: 10, width: 60, height: 20),   // hair against the backdrop
            PatchRect(name: "hair outline, left", x: 148, y: 60, width: 18, height: 60),
            PatchRect(name: "hair line at the right cheek", x: 262, y: 100, width: 14, height: 35),
            PatchRect(name: "collar (black neck against skin)", x: 188, y: 178, width: 68, height: 16),
            PatchRect(name: "suit ring", x: 255, y: 173, width: 33, height: 41),
        ],
        extra: [
            PatchRect(name: "forehead strip (skin, 6 rows between fringe and brows)", x: 204, y: 82, width: 32, height: 6),
            PatchRect(name: "fringe (hair over the forehead)", x: 204, y: 72, width: 32, height: 12),
        ],
        crop: PatchRect(name: "face", x: 160, y: 40, width: 140, height: 160))

    static let graceHopper = Portrait(
        name: "grace_hopper", load: { try Photos.graceHopper() },
        skin: [
            PatchRect(name: "forehead", x: 201, y: 140, width: 83, height: 18),     // between hat brim and brows: wrinkles
            PatchRect(name: "left cheek", x: 187, y: 235, width: 28, height: 27),   // below the glasses
            PatchRect(name: "right cheek", x: 315, y: 223, width: 30, height: 30),
        ],
        edges: [
            PatchRect(name: "hat brim against the forehead (hair line)", x: 200, y: 128, width: 95, height: 14),
            PatchRect(name: "left eye", x: 213, y: 183, width: 20, height: 12),
            PatchRect(name: "glasses frame", x: 179, y: 175, width: 67, height: 8),
            PatchRect(name: "collar (white shirt against the jacket)", x: 190, y: 330, width: 12, height: 60),
        ],
        extra: [],
        crop: PatchRect(name: "face", x: 150, y: 100, width: 220, height: 200))
}

/// Ratios after / before for each patch.
struct BeautyReport {
    var skin: [(PatchRect, Double)] = []
    var edges: [(PatchRect, Double)] = []
    var extra: [(PatchRect, Double, Double)] = []

    init(before: RGBAImage, after: RGBAImage, portrait: Portrait) {
        skin = portrait.skin.map { ($0, BeautyMetrics.laplacianVariance(after, in: $0) / BeautyMetrics.laplacianVariance(before, in: $0)) }
        edges = portrait.edges.map { ($0, BeautyMetrics.gradientEnergy(after, in: $0) / BeautyMetrics.gradientEnergy(before, in: $0)) }
        extra = portrait.extra.map {
            ($0, BeautyMetrics.laplacianVariance(after, in: $0) / BeautyMetrics.laplacianVariance(before, in: $0),
             BeautyMetrics.gradientEnergy(after, in: $0) / BeautyMetrics.gradientEnergy(before, in: $0))
        }
    }
}

@Suite("Beauty", .closesContexts)
struct BeautyTests {
    @Test("Default strength: skin loses at least half its Laplacian variance, strong non-skin edges keep 85 % of their gradient energy",
          arguments: [Portrait.astronaut, Portrait.graceHopper])
    func portrait(_ portrait: Portrait) async throws {
        let before = try portrait.load()
        let after = try await render(before, through: Beauty())
        #expect(after.width == before.width && after.height == before.height)
        let report = BeautyReport(before: before, after: after, portrait: portrait)
        for (patch, ratio) in report.skin {
            #expect(ratio <= 0.5, "\(portrait.name), skin \(patch): Laplacian variance kept \(ratio)")
        }
        for (patch, ratio) in report.edges {
            #expect(ratio >= 0.85, "\(portrait.name), edge \(patch): gradient energy kept \(ratio)")
        }
    }

    @Test("Strength 0 is the identity, whatever the other settings", arguments: [Portrait.astronaut, Portrait.graceHopper])
    func strengthZero(_ portrait: Portrait) async throws {
        let before = try portrait.load()
        let beauty = Beauty(strength: 0)
        beauty.smoothing = 1
        beauty.whitening = 1
        beauty.sharpness = 1
        let after = try await render(before, through: beauty)
        expectClose(after, DoubleImage(before), tolerance: 1, "strength 0")
    }

    @Test("A very small strength changes the picture only slightly (the shaders' identity path)")
    func smallStrength() async throws {
        let before = try Photos.astronaut()
        let after = try await render(before, through: Beauty(strength: 0.01))
        expectClose(after, DoubleImage(before), tolerance: 3, "strength 0.01")
    }

    @Test("Settings are clamped to 0...1; NaN means the default; garbage never reaches the shaders")
    func badSettings() async throws {
        let beauty = Beauty(strength: .nan)
        #expect(beauty.strength == 0.7)
        beauty.strength = 4
        #expect(beauty.strength == 1)
        beauty.strength = -.infinity
        #expect(beauty.strength == 0)
        beauty.smoothing = .nan
        #expect(beauty.smoothing == 1)
        beauty.whitening = 2
        #expect(beauty.whitening == 1)
        beauty.sharpness = -1
        #expect(beauty.sharpness == 0)
        beauty.radius = .nan
        #expect(beauty.radius == nil)
        beauty.radius = 1e9
        #expect(beauty.radius == 100)
        beauty.radius = 0
        #expect(beauty.radius == 2)
        var settings = Beauty.Settings()
        settings.strength = .nan
        settings.whitening = .infinity
        beauty.settings = settings
        #expect(beauty.settings.strength == 0.7 && beauty.settings.whitening == 1)

        // NaN settings render exactly what the defaults render.
        let image = crop(try Photos.astronaut(), x: 150, y: 40, width: 160, height: 160)
        let context = try TestContexts.make()
        let nanBeauty = Beauty(strength: .nan)
        nanBeauty.smoothing = .nan
        nanBeauty.whitening = .nan
        nanBeauty.sharpness = .nan
        let fromNaN = try await render(image, through: nanBeauty, on: context)
        let fromDefaults = try await render(image, through: Beauty(), on: context)
        #expect(fromNaN == fromDefaults)
    }

    @Test("Tiny and odd sizes and extreme radii render a full frame", arguments: [(1, 1), (3, 2), (17, 5), (641, 23)])
    func sizes(width: Int, height: Int) async throws {
        let image = randomImage(width: width, height: height, seed: UInt64(width * 7 + height))
        for radius: Float? in [nil, 2, 100] {
            let beauty = Beauty(strength: 1)
            beauty.radius = radius
            let after = try await render(image, through: beauty)
            #expect(after.width == width && after.height == height)
            #expect(after.pixels.count == width * height * 4)
        }
    }

    @Test("The whole filter is five draws; strength 0 draws nothing")
    func drawCalls() async throws {
        let context = try TestContexts.make()
        let image = randomImage(width: 64, height: 48, seed: 77)
        let beauty = Beauty()
        try await context.perform { try beauty.prepare(in: $0) }
        let before = await context.drawCallCount
        _ = try await render(image, through: beauty, on: context)
        let afterOne = await context.drawCallCount
        beauty.strength = 0
        _ = try await render(image, through: beauty, on: context)
        let afterTwo = await context.drawCallCount
        #expect(afterOne - before == 5)
        #expect(afterTwo == afterOne)
    }

    /// Writes before/after crops and the measured ratios to docs/beauty/ when ELIMAGE_WRITE_DOCS=1.
    @Test("Before/after pictures and metrics for docs/beauty", .enabled(if: ProcessInfo.processInfo.environment["ELIMAGE_WRITE_DOCS"] == "1"))
    func writeDocs() async throws {
        let folder = Repository.path("docs/beauty")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var text = """
            # Beauty filter: measured on the bundled portraits

            Generated by `ELIMAGE_WRITE_DOCS=1 swift test --filter BeautyTests` (Tests/ELImageTests/Filters/BeautyTests.swift)
            with `Beauty()` at its defaults (strength 0.7, smoothing 1, whitening 0.3, sharpness 0.3), on llvmpipe.

            - Skin: Laplacian variance of the BT.709 luma, after / before (lower is smoother; the test requires <= 0.5).
            - Edges: mean squared luma gradient, after / before (the test requires >= 0.85).


            """
        for portrait in [Portrait.astronaut, Portrait.graceHopper] {
            let before = try portrait.load()
            let after = try await render(before, through: Beauty())
            let report = BeautyReport(before: before, after: after, portrait: portrait)
            let c = portrait.crop
            let left = crop(before, x: c.x, y: c.y, width: c.width, height: c.height)
            let right = crop(after, x: c.x, y: c.y, width: c.width, height: c.height)
            var pixels: [UInt8] = []
            for row in 0..<c.height {
                pixels += left.pixels[(row * c.width * 4)..<((row + 1) * c.width * 4)]
                pixels += right.pixels[(row * c.width * 4)..<((row + 1) * c.width * 4)]
            }
            let file = "\(portrait.name)_before_after.png"
            try PNGFile.write(RGBAImage(width: c.width * 2, height: c.height, pixels: pixels), to: folder + "/" + file)
            text += "## \(portrait.name) (\(before.width)x\(before.height)), crop \(c.width)x\(c.height) at (\(c.x), \(c.y))\n\n"
            text += "![\(portrait.name): before (left), after (right)](\(file))\n\n| patch | x, y, width x height | measure | after / before |\n|---|---|---|---|\n"
            for (patch, ratio) in report.skin {
                text += "| skin: \(patch.name) | \(patch.x), \(patch.y), \(patch.width)x\(patch.height) | Laplacian variance | \(String(format: "%.3f", ratio)) |\n"
            }
            for (patch, ratio) in report.edges {
                text += "| edge: \(patch.name) | \(patch.x), \(patch.y), \(patch.width)x\(patch.height) | gradient energy | \(String(format: "%.3f", ratio)) |\n"
            }
            for (patch, laplacian, gradient) in report.extra {
                text += "| not asserted: \(patch.name) | \(patch.x), \(patch.y), \(patch.width)x\(patch.height) | Laplacian variance / gradient energy | \(String(format: "%.3f / %.3f", laplacian, gradient)) |\n"
            }
            text += "\n"
        }
        try text.write(toFile: folder + "/metrics.md", atomically: true, encoding: .utf8)
    }
}
