import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// A portrait with the patches the beauty filter is judged on, from docs/beauty/portraits.json. The
/// rectangles were placed by looking at the pictures (enlarged, with the rectangles drawn on them):
/// skin patches are plain skin (cheeks, forehead, chin: no brows, eyes, lips or hair), detail
/// patches are what must stay sharp (eyes, mouth, hair, glasses, clothes), not-skin patches are
/// what the mask must leave out, each with the highest mean mask value allowed there.
struct Portrait: Sendable, Decodable, CustomTestStringConvertible {
    var name = ""
    let file: String
    let skin: [PatchRect]
    let details: [PatchRect]
    let notSkin: [PatchRect]
    /// The crop shown in docs/beauty.
    let crop: PatchRect
    /// Hand-marked landmarks in pixels: left eye, right eye, nose tip, mouth left, mouth right.
    let landmarks: [[Float]]
    /// Deep folds (nasolabial, marionette lines, neck creases), where marked.
    var folds: [PatchRect] = []
    var testDescription: String { name }

    private enum CodingKeys: String, CodingKey { case file, skin, details, notSkin, crop, landmarks, folds }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        file = try container.decode(String.self, forKey: .file)
        skin = try container.decode([PatchRect].self, forKey: .skin)
        details = try container.decode([PatchRect].self, forKey: .details)
        notSkin = try container.decode([PatchRect].self, forKey: .notSkin)
        crop = try container.decode(PatchRect.self, forKey: .crop)
        landmarks = try container.decode([[Float]].self, forKey: .landmarks)
        folds = try container.decodeIfPresent([PatchRect].self, forKey: .folds) ?? []
    }

    /// The marked landmarks as `Beauty.faces` takes them, for a `width`×`height` picture.
    func facePoints(width: Int, height: Int) -> FacePoints {
        let size = SIMD2(Float(width), Float(height))
        let points = landmarks.map { SIMD2($0[0], $0[1]) / size }
        return FacePoints(leftEye: points[0], rightEye: points[1], nose: points[2], mouthLeft: points[3], mouthRight: points[4])
    }

    /// The picture, decoded by ffmpeg (PNG or JPEG).
    func load() throws -> RGBAImage {
        try Photos.decode(Repository.path(file))
    }

    static let all: [Portrait] = {
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: Repository.path("docs/beauty/portraits.json")))
            return try JSONDecoder().decode([String: Portrait].self, from: data)
                .map { name, portrait in var named = portrait; named.name = name; return named }
                .sorted { $0.name < $1.name }
        } catch {
            Issue.record("docs/beauty/portraits.json: \(error)")
            return []
        }
    }()

    static var astronaut: Portrait { all.first { $0.name == "astronaut" } ?? all[0] }
    static var graceHopper: Portrait { all.first { $0.name == "grace_hopper" } ?? all[0] }
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
        // Per patch (after, before), and the area-weighted ratio over all patches.
        func ratios(_ patches: [PatchRect], _ measure: ([Double], Int, PatchRect) -> Double) -> (each: [(PatchRect, Double)], pooled: Double) {
            var sumBefore = 0.0, sumAfter = 0.0
            let each = patches.map { patch -> (PatchRect, Double) in
                let area = Double(patch.width * patch.height)
                let valueBefore = measure(lumaBefore, width, patch), valueAfter = measure(lumaAfter, width, patch)
                sumBefore += area * valueBefore
                sumAfter += area * valueAfter
                return (patch, valueAfter / valueBefore)
            }
            return (each, sumAfter / sumBefore)
        }
        let skinRatios = ratios(portrait.skin) { BeautyMetrics.laplacianVariance($0, width: $1, in: $2) }
        let detailRatios = ratios(portrait.details) { BeautyMetrics.sobelEnergy($0, width: $1, in: $2) }
        skin = skinRatios.each.map { ($0.0, 1 - $0.1) }
        details = detailRatios.each
        skinDrop = 1 - skinRatios.pooled
        detailKept = detailRatios.pooled
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
            #expect(kept >= 0.75, "\(portrait.name), detail \(patch): kept \(kept)")
        }
    }

    @Test("Strength 0 is the identity (>= 50 dB); the skin drop grows with strength 0, 0.25, 0.5, 1 and with smoothing",
          arguments: Portrait.all)
    func monotonicStrength(_ portrait: Portrait) async throws {
        let before = try portrait.load()
        let context = try TestContexts.make()
        var drops: [Double] = []
        for strength: Float in [0, 0.25, 0.5, 1] {
            let after = try await render(before, through: Beauty(strength: strength), on: context)
            if strength == 0 {
                #expect(psnr(after, before) >= 50, "\(portrait.name): strength 0 is \(psnr(after, before)) dB from the input")
            }
            drops.append(BeautyReport(before: before, after: after, portrait: portrait).skinDrop)
        }
        var smoothingDrops: [Double] = []
        for smoothing: Float in [0.25, 0.5, 1] {
            let beauty = Beauty(strength: 1)
            beauty.smoothing = smoothing
            let after = try await render(before, through: beauty, on: context)
            smoothingDrops.append(BeautyReport(before: before, after: after, portrait: portrait).skinDrop)
        }
        print("beauty \(portrait.name) drop by strength 0, 0.25, 0.5, 1: \(drops); by smoothing 0.25, 0.5, 1 at strength 1: \(smoothingDrops)")
        #expect(abs(drops[0]) < 0.01)
        for index in 1..<drops.count {
            #expect(drops[index] > drops[index - 1] + 0.02, "\(portrait.name): drops by strength \(drops)")
        }
        for index in 1..<smoothingDrops.count {
            #expect(smoothingDrops[index] > smoothingDrops[index - 1] + 0.02, "\(portrait.name): drops by smoothing \(smoothingDrops)")
        }
    }

    @Test("The skin mask (showsSkinMask) is high on skin and low on pupils, lips and teeth, hair, clothes and background",
          arguments: Portrait.all)
    func skinMask(_ portrait: Portrait) async throws {
        let image = try portrait.load()
        let beauty = Beauty()
        beauty.showsSkinMask = true
        let mask = try await render(image, through: beauty)
        for patch in portrait.skin {
            let value = BeautyMetrics.mean(mask, in: patch)
            print("beauty \(portrait.name) mask, skin \(patch.name): \(value)")
            #expect(value >= 0.7, "\(portrait.name): mask \(value) on skin \(patch)")
        }
        for patch in portrait.notSkin {
            let limit = patch.limit ?? 0.2
            let value = BeautyMetrics.mean(mask, in: patch)
            print("beauty \(portrait.name) mask, not skin \(patch.name): \(value)")
            #expect(value <= limit, "\(portrait.name): mask \(value) on \(patch)")
        }
    }

    @Test("Face regions seed the model: on a grayscale portrait the mask follows the given face, in frame coordinates (top-left origin)")
    func faceRegions() async throws {
        let portrait = Portrait.astronaut
        let image = PortraitVariant.grayscale.apply(to: try portrait.load())
        let context = try TestContexts.make()
        func cheekMask(_ regions: [FaceRegion]) async throws -> Double {
            let beauty = Beauty()
            beauty.showsSkinMask = true
            beauty.faceRegions = regions
            let mask = try await render(image, through: beauty, on: context)
            return portrait.skin.prefix(2).map { BeautyMetrics.mean(mask, in: $0) }.reduce(0, +) / 2
        }
        let face = FaceRegion(x: 170 / 512, y: 60 / 512, width: 110 / 512, height: 120 / 512)
        let onFace = try await cheekMask([face])
        // The same rectangle mirrored top to bottom: a flipped y would put it on the face.
        let elsewhere = try await cheekMask([FaceRegion(x: face.x, y: 1 - face.y - face.height, width: face.width, height: face.height)])
        #expect(onFace >= 0.7, "cheeks with the face given: \(onFace)")
        #expect(elsewhere <= 0.2, "cheeks with a face given elsewhere: \(elsewhere)")
    }

    @Test("Stable on video: on a noisy portrait clip the skin flickers less after beauty, and the mask hardly changes between frames (without faces and with faces whose points jitter)",
          arguments: [false, true])
    func temporalStability(withFaces: Bool) async throws {
        // The face of grace_hopper (its docs crop, 240x240), with its skin patches (and folds, with
        // faces: the marked points moved each frame by up to 1.5 % of the eye distance, as far as
        // the landmark detector's points spread on a still face).
        let portrait = Portrait.graceHopper, face = portrait.crop
        let clean = crop(try portrait.load(), x: face.x, y: face.y, width: face.width, height: face.height)
        let patches = portrait.skin + (withFaces ? portrait.folds.filter { $0.y + $0.height <= face.y + face.height } : [])
        let skin = patches.map { PatchRect(name: $0.name, x: $0.x - face.x, y: $0.y - face.y, width: $0.width, height: $0.height) }
        let context = try TestContexts.make()
        let beauty = Beauty(), maskBeauty = Beauty()
        maskBeauty.showsSkinMask = true
        var before: [[Double]] = [], after: [[Double]] = [], masks: [RGBAImage] = []
        for index in 0..<6 {
            if withFaces {
                let points = portrait.landmarks.enumerated().map { point, mark in
                    let angle = Float(index * 5 + point) * 2.4, shift = 0.015 * 84 * Float(index % 2 == 0 ? 1 : -1)
                    return SIMD2((mark[0] - Float(face.x) + shift * cos(angle)) / Float(face.width),
                                 (mark[1] - Float(face.y) + shift * sin(angle)) / Float(face.height))
                }
                let moved = FacePoints(leftEye: points[0], rightEye: points[1], nose: points[2], mouthLeft: points[3], mouthRight: points[4])
                beauty.faces = [moved]
                maskBeauty.faces = [moved]
            }
            let frame = noisy(clean, deviation: 6, seed: UInt64(index + 1))
            before.append(BeautyMetrics.luma(frame))
            after.append(BeautyMetrics.luma(try await render(frame, through: beauty, on: context)))
            masks.append(try await render(frame, through: maskBeauty, on: context))
        }
        for patch in skin {
            let deviationBefore = temporalDeviation(before, width: clean.width, in: patch)
            let deviationAfter = temporalDeviation(after, width: clean.width, in: patch)
            print("beauty temporal deviation, \(patch.name): \(deviationBefore) -> \(deviationAfter)")
            #expect(deviationAfter < 0.8 * deviationBefore, "\(patch): temporal deviation \(deviationBefore) -> \(deviationAfter)")
        }
        // The mask's mean change between frames, over the whole frame and inside the skin patches:
        // about 0.025 with this noise, which itself changes each pixel by about 0.027 per frame.
        for index in 1..<masks.count {
            let frameChange = meanChange(masks[index], masks[index - 1], in: [PatchRect(name: "frame", x: 0, y: 0, width: clean.width, height: clean.height)])
            let skinChange = meanChange(masks[index], masks[index - 1], in: skin)
            #expect(frameChange < 0.035 && skinChange < 0.035, "frame \(index): the mask changed by \(frameChange) on average, \(skinChange) on skin")
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
        // Without colour, hair and lips are told from skin by luma and position alone: the
        // astronaut's light-brown hair keeps less (see docs/beauty/metrics.md).
        let detailRequired = variant == .grayscale ? 0.8 : 0.85
        #expect(report.detailKept >= detailRequired, "\(portrait.name) \(variant): \(report.summary)")
    }

    @Test("Strength 0 is the identity, whatever the other settings", arguments: Portrait.all)
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
        beauty.faceRegions = [FaceRegion(x: .nan, y: 0, width: 1, height: 1), FaceRegion(x: -0.5, y: 0.5, width: 1, height: 1),
                              FaceRegion(x: 2, y: 0, width: 1, height: 1)]
        #expect(beauty.faceRegions == [FaceRegion(x: 0, y: 0.5, width: 0.5, height: 0.5)])
        let face = FacePoints(leftEye: [0.4, 0.4], rightEye: [0.6, 0.4], nose: [0.5, 0.5], mouthLeft: [0.42, 0.6], mouthRight: [0.58, 0.6])
        var broken = face
        broken.nose.x = .nan
        beauty.faces = [broken] + Array(repeating: face, count: 6)
        #expect(beauty.faces == Array(repeating: face, count: Beauty.maximumFaces), "NaN faces left out, at most four")
        beauty.folds = .nan
        #expect(beauty.folds == 1)
        beauty.folds = 3
        #expect(beauty.folds == 1)

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

    @Test("The whole filter is eight draws (twelve with faces with landmarks); strength 0 draws nothing")
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
        beauty.strength = 0.7
        beauty.faces = [FacePoints(leftEye: [0.4, 0.4], rightEye: [0.6, 0.4], nose: [0.5, 0.5], mouthLeft: [0.42, 0.6], mouthRight: [0.58, 0.6])]
        _ = try await render(image, through: beauty, on: context)
        #expect(await context.drawCallCount - afterTwo == 12, "faces with landmarks add the four fold passes")
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

/// PSNR in dB of `image` against `reference` over the colour channels.
private func psnr(_ image: RGBAImage, _ reference: RGBAImage) -> Double {
    var sum = 0.0, count = 0
    for index in image.pixels.indices where index % 4 != 3 {
        let difference = Double(image.pixels[index]) - Double(reference.pixels[index])
        sum += difference * difference
        count += 1
    }
    return sum == 0 ? .infinity : 10 * log10(255 * 255 / (sum / Double(count)))
}

/// `image` with Gaussian sensor noise of `deviation` levels added to each channel.
private func noisy(_ image: RGBAImage, deviation: Double, seed: UInt64) -> RGBAImage {
    var state = seed &* 0x9E37_79B9_7F4A_7C15
    func uniform() -> Double {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return (Double(state >> 11) + 0.5) / Double(1 << 53)
    }
    var pixels = image.pixels
    for index in pixels.indices where index % 4 != 3 {
        let gaussian = (-2 * log(uniform())).squareRoot() * cos(2 * Double.pi * uniform())
        pixels[index] = UInt8(min(max((Double(pixels[index]) + deviation * gaussian).rounded(), 0), 255))
    }
    return RGBAImage(width: image.width, height: image.height, pixels: pixels)
}

/// The mean over `rect` of each pixel's standard deviation over the frames.
private func temporalDeviation(_ frames: [[Double]], width: Int, in rect: PatchRect) -> Double {
    var sum = 0.0
    for row in rect.y..<(rect.y + rect.height) {
        for column in rect.x..<(rect.x + rect.width) {
            let values = frames.map { $0[row * width + column] }
            let mean = values.reduce(0, +) / Double(values.count)
            sum += (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count)).squareRoot()
        }
    }
    return sum / Double(rect.width * rect.height)
}

/// The mean absolute difference (0...1) of two masks' red channel over `rects`.
private func meanChange(_ mask: RGBAImage, _ previous: RGBAImage, in rects: [PatchRect]) -> Double {
    var sum = 0.0, count = 0
    for rect in rects {
        for row in rect.y..<(rect.y + rect.height) {
            for column in rect.x..<(rect.x + rect.width) {
                let index = (row * mask.width + column) * 4
                sum += abs(Double(mask.pixels[index]) - Double(previous.pixels[index]))
                count += 1
            }
        }
    }
    return sum / Double(max(count, 1)) / 255
}
