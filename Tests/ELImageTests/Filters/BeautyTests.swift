import ELImage
import ELImageMedia
import Foundation
import Testing

/// A portrait with the patches the beauty filter is judged on. The rectangles were placed by
/// looking at the pictures (enlarged, with the rectangles drawn on them): skin patches are plain
/// skin (cheeks, forehead, chin: no brows, eyes, lips or hair), detail patches are what must stay
/// sharp (eyes, mouth, hair, glasses, clothes), mask patches are what must not count as skin.
struct Portrait: Sendable, CustomTestStringConvertible {
    let name: String
    let load: @Sendable () throws -> RGBAImage
    let skin: [PatchRect]
    let details: [PatchRect]
    /// Not skin, for the mask checks: eyes, lips, hair, background.
    let notSkin: [PatchRect]
    /// The crop shown in docs/beauty.
    let crop: PatchRect
    var testDescription: String { name }

    static let all = [astronaut, graceHopper]

    static let astronaut = Portrait(
        name: "astronaut", load: { try Photos.astronaut() },
        skin: [
            PatchRect(name: "left cheek", x: 186, y: 109, width: 17, height: 17),   // below the left eye, beside the nose
            PatchRect(name: "right cheek", x: 243, y: 111, width: 20, height: 17),  // below the right eye
            PatchRect(name: "forehead", x: 204, y: 82, width: 32, height: 6),       // between fringe and brows
            PatchRect(name: "chin", x: 212, y: 158, width: 20, height: 9),
        ],
        details: [
            PatchRect(name: "left eye", x: 193, y: 96, width: 21, height: 9),       // lashes, iris, eye white
            PatchRect(name: "right eye", x: 235, y: 98, width: 24, height: 9),
            PatchRect(name: "mouth", x: 204, y: 139, width: 36, height: 12),        // lips and teeth
            PatchRect(name: "hair, top", x: 205, y: 30, width: 70, height: 25),
            PatchRect(name: "hair outline, left", x: 148, y: 60, width: 18, height: 60),
            PatchRect(name: "hair line at the right cheek", x: 262, y: 100, width: 14, height: 35),
            PatchRect(name: "collar (black neck against skin)", x: 188, y: 178, width: 68, height: 16),
            PatchRect(name: "suit ring", x: 255, y: 173, width: 33, height: 41),
        ],
        notSkin: [
            PatchRect(name: "left pupil", x: 200, y: 98, width: 6, height: 5),
            PatchRect(name: "teeth", x: 212, y: 142, width: 20, height: 5),
            PatchRect(name: "hair", x: 215, y: 35, width: 50, height: 15),
            PatchRect(name: "backdrop", x: 320, y: 20, width: 40, height: 40),
            PatchRect(name: "suit", x: 60, y: 330, width: 50, height: 50),
            PatchRect(name: "flag", x: 10, y: 200, width: 40, height: 40),
        ],
        crop: PatchRect(name: "face", x: 150, y: 20, width: 160, height: 180))

    static let graceHopper = Portrait(
        name: "grace_hopper", load: { try Photos.graceHopper() },
        skin: [
            PatchRect(name: "forehead", x: 201, y: 140, width: 83, height: 18),     // between hat brim and brows: wrinkles
            PatchRect(name: "left cheek", x: 187, y: 235, width: 28, height: 27),   // below the glasses
            PatchRect(name: "right cheek", x: 315, y: 223, width: 30, height: 30),
            PatchRect(name: "chin", x: 245, y: 295, width: 45, height: 18),         // wrinkles below the lower lip
        ],
        details: [
            PatchRect(name: "hat brim against the forehead", x: 200, y: 128, width: 95, height: 14),
            PatchRect(name: "left eye", x: 213, y: 183, width: 20, height: 12),
            PatchRect(name: "right eye", x: 292, y: 180, width: 22, height: 12),
            PatchRect(name: "glasses frame", x: 179, y: 175, width: 67, height: 8),
            PatchRect(name: "mouth", x: 242, y: 268, width: 62, height: 14),
            PatchRect(name: "hair at the left cheek", x: 158, y: 255, width: 22, height: 50),
            PatchRect(name: "collar (white shirt against the jacket)", x: 190, y: 330, width: 12, height: 60),
            PatchRect(name: "name tag", x: 80, y: 485, width: 85, height: 30),
            PatchRect(name: "ribbons", x: 325, y: 490, width: 125, height: 35),
        ],
        notSkin: [
            PatchRect(name: "right pupil", x: 298, y: 182, width: 8, height: 6),
            PatchRect(name: "hat", x: 200, y: 100, width: 100, height: 20),
            PatchRect(name: "jacket", x: 60, y: 420, width: 80, height: 60),
            PatchRect(name: "sky", x: 420, y: 150, width: 60, height: 80),
            PatchRect(name: "flag", x: 20, y: 250, width: 60, height: 60),
        ],
        crop: PatchRect(name: "face", x: 140, y: 100, width: 240, height: 240))
}

/// The issue's measures for one rendered portrait: skin drop = 1 - Laplacian variance after /
/// before over the skin patches together, detail kept = Sobel energy after / before over the
/// detail patches together; each patch's own ratios too.
struct BeautyReport {
    var skinDrop = 0.0
    var detailKept = 0.0
    var skin: [(PatchRect, Double)] = []
    var details: [(PatchRect, Double)] = []

    init(before: RGBAImage, after: RGBAImage, portrait: Portrait) {
        let lumaBefore = BeautyMetrics.luma(before), lumaAfter = BeautyMetrics.luma(after), width = before.width
        var skinBefore = 0.0, skinAfter = 0.0, detailBefore = 0.0, detailAfter = 0.0
        for patch in portrait.skin {
            let area = Double(patch.width * patch.height)
            let b = BeautyMetrics.laplacianVariance(lumaBefore, width: width, in: patch)
            let a = BeautyMetrics.laplacianVariance(lumaAfter, width: width, in: patch)
            skinBefore += area * b
            skinAfter += area * a
            skin.append((patch, 1 - a / b))
        }
        for patch in portrait.details {
            let area = Double(patch.width * patch.height)
            let b = BeautyMetrics.sobelEnergy(lumaBefore, width: width, in: patch)
            let a = BeautyMetrics.sobelEnergy(lumaAfter, width: width, in: patch)
            detailBefore += area * b
            detailAfter += area * a
            details.append((patch, a / b))
        }
        skinDrop = 1 - skinAfter / skinBefore
        detailKept = detailAfter / detailBefore
    }

    var summary: String {
        String(format: "skin drop %.3f, detail kept %.3f; ", skinDrop, detailKept)
            + skin.map { String(format: "%@ %.2f", $0.0.name, $0.1) }.joined(separator: ", ") + "; "
            + details.map { String(format: "%@ %.2f", $0.0.name, $0.1) }.joined(separator: ", ")
    }
}

@Suite("Beauty", .closesContexts)
struct BeautyTests {
    @Test("Default settings: skin drop >= 0.5 and detail kept >= 0.85 (the issue's measures)", arguments: Portrait.all)
    func portrait(_ portrait: Portrait) async throws {
        let before = try portrait.load()
        let after = try await render(before, through: Beauty())
        #expect(after.width == before.width && after.height == before.height)
        let report = BeautyReport(before: before, after: after, portrait: portrait)
        print("beauty \(portrait.name): \(report.summary)")
        #expect(report.skinDrop >= 0.5, "\(portrait.name): \(report.summary)")
        #expect(report.detailKept >= 0.85, "\(portrait.name): \(report.summary)")
        for (patch, drop) in report.skin {
            #expect(drop >= 0.4, "\(portrait.name), skin \(patch): drop \(drop)")
        }
        for (patch, kept) in report.details {
            #expect(kept >= 0.8, "\(portrait.name), detail \(patch): kept \(kept)")
        }
    }

    @Test("The same on copies that move the skin elsewhere: grayscale, warm and cool light, darker skin, washed-out colour",
          arguments: Portrait.all, PortraitVariant.allCases.filter { $0 != .original })
    func variant(_ portrait: Portrait, _ variant: PortraitVariant) async throws {
        let before = variant.apply(to: try portrait.load())
        let after = try await render(before, through: Beauty())
        let report = BeautyReport(before: before, after: after, portrait: portrait)
        print("beauty \(portrait.name) \(variant): \(report.summary)")
        #expect(report.skinDrop >= 0.5, "\(portrait.name) \(variant): \(report.summary)")
        #expect(report.detailKept >= 0.85, "\(portrait.name) \(variant): \(report.summary)")
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

    @Test("The whole filter is eight draws; strength 0 draws nothing")
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
        #expect(afterOne - before == 8)
        #expect(afterTwo == afterOne)
    }

    /// Writes before/after crops, the skin mask of each portrait and the measured figures to
    /// docs/beauty/ when ELIMAGE_WRITE_DOCS=1.
    @Test("Before/after pictures, masks and metrics for docs/beauty", .enabled(if: ProcessInfo.processInfo.environment["ELIMAGE_WRITE_DOCS"] == "1"))
    func writeDocs() async throws {
        let folder = Repository.path("docs/beauty")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var text = """
            # Beauty filter: measured on the bundled portraits

            Generated by `ELIMAGE_WRITE_DOCS=1 swift test --filter BeautyTests` (Tests/ELImageTests/Filters/BeautyTests.swift)
            with `Beauty()` at its defaults (strength 0.7, smoothing 1, whitening 0.3, sharpness 0.3), on llvmpipe.

            - Skin drop: 1 − (Laplacian variance of the BT.709 luma after / before) over the skin patches together
              (the test requires ≥ 0.5 on each portrait).
            - Detail kept: Sobel energy of the luma after / before over the detail patches together (≥ 0.85).
            - The variants are copies made at test time: grayscale, warm (×1.15, 1, 0.75 in linear light) and cool
              (×0.8, 1, 1.2) white balance, darker skin (×0.25 in linear light), washed-out colour (40 % chroma).


            """
        for portrait in Portrait.all {
            let before = try portrait.load()
            let after = try await render(before, through: Beauty())
            let maskFilter = Beauty()
            maskFilter.showsSkinMask = true
            let mask = try await render(before, through: maskFilter)
            let report = BeautyReport(before: before, after: after, portrait: portrait)
            let c = portrait.crop
            let pieces = [before, after, mask].map { crop($0, x: c.x, y: c.y, width: c.width, height: c.height) }
            var pixels: [UInt8] = []
            for row in 0..<c.height {
                for piece in pieces { pixels += piece.pixels[(row * c.width * 4)..<((row + 1) * c.width * 4)] }
            }
            let file = "\(portrait.name)_before_after_mask.png"
            try PNGFile.write(RGBAImage(width: c.width * 3, height: c.height, pixels: pixels), to: folder + "/" + file)
            text += "## \(portrait.name) (\(before.width)x\(before.height)), crop \(c.width)x\(c.height) at (\(c.x), \(c.y))\n\n"
            text += "![\(portrait.name): before, after, skin mask](\(file))\n\n"
            text += String(format: "Skin drop **%.3f**, detail kept **%.3f**.\n\n", report.skinDrop, report.detailKept)
            text += "| patch | x, y, width x height | measure | value |\n|---|---|---|---|\n"
            for (patch, drop) in report.skin {
                text += "| skin: \(patch.name) | \(patch.x), \(patch.y), \(patch.width)x\(patch.height) | skin drop | \(String(format: "%.3f", drop)) |\n"
            }
            for (patch, kept) in report.details {
                text += "| detail: \(patch.name) | \(patch.x), \(patch.y), \(patch.width)x\(patch.height) | detail kept | \(String(format: "%.3f", kept)) |\n"
            }
            text += "\n| variant | skin drop | detail kept |\n|---|---|---|\n"
            for variant in PortraitVariant.allCases {
                let input = variant.apply(to: before)
                let output = try await render(input, through: Beauty())
                let variantReport = BeautyReport(before: input, after: output, portrait: portrait)
                text += String(format: "| %@ | %.3f | %.3f |\n", variant.rawValue, variantReport.skinDrop, variantReport.detailKept)
            }
            text += "\n"
        }
        try text.write(toFile: folder + "/metrics.md", atomically: true, encoding: .utf8)
    }
}
