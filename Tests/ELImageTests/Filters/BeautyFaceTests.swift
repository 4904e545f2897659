import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// Beauty steered by faces with landmarks (`Beauty.faces`), on the portraits' hand-marked points:
/// deep folds smoothed, no boundary where the smoothing ends in the neck, eyes and lips as sharp
/// as without faces.
@Suite("Beauty with faces", .closesContexts)
struct BeautyFaceTests {
    /// Beauty at its defaults, with the portrait's marked face or without.
    static func beauty(_ portrait: Portrait, _ image: RGBAImage, faces: Bool, mask: Bool = false) -> Beauty {
        let beauty = Beauty()
        if faces { beauty.faces = [portrait.facePoints(width: image.width, height: image.height)] }
        beauty.showsSkinMask = mask
        return beauty
    }

    @Test("Folds: the texture over grace_hopper's folds falls by a quarter or more with faces, more than without, and the skin and detail measures still hold")
    func folds() async throws {
        let portrait = Portrait.graceHopper
        let before = try portrait.load()
        let context = try TestContexts.make()
        let withFaces = try await render(before, through: Self.beauty(portrait, before, faces: true), on: context)
        let without = try await render(before, through: Self.beauty(portrait, before, faces: false), on: context)
        try dump(["before": before, "faces": withFaces, "without": without], portrait)
        let lumaBefore = BeautyMetrics.luma(before)
        // Laplacian variance after / before, each fold and all together (area-weighted).
        func ratios(_ after: RGBAImage) -> (each: [Double], pooled: Double) {
            let lumaAfter = BeautyMetrics.luma(after)
            var sumBefore = 0.0, sumAfter = 0.0
            let each = portrait.folds.map { patch in
                let area = Double(patch.width * patch.height)
                let valueBefore = BeautyMetrics.laplacianVariance(lumaBefore, width: before.width, in: patch)
                let valueAfter = BeautyMetrics.laplacianVariance(lumaAfter, width: after.width, in: patch)
                sumBefore += area * valueBefore
                sumAfter += area * valueAfter
                return valueAfter / valueBefore
            }
            return (each, sumAfter / sumBefore)
        }
        let faces = ratios(withFaces), plain = ratios(without)
        print("beauty folds, texture after/before with faces \(faces), without \(plain)")
        #expect(portrait.folds.count == 5)
        #expect(faces.pooled <= 0.6, "all folds: \(faces.pooled) with faces")
        for (patch, (ratio, plainRatio)) in zip(portrait.folds, zip(faces.each, plain.each)) {
            #expect(ratio <= 0.75 && ratio < plainRatio, "\(patch): texture after/before \(ratio) with faces, \(plainRatio) without")
        }
        let report = BeautyReport(before: before, after: withFaces, portrait: portrait)
        print("beauty with faces \(portrait.name): \(report.summary)")
        #expect(report.skinDrop >= 0.5 && report.detailKept >= 0.85, "\(report.summary)")
    }

    @Test("Eyes, glasses and mouth stay as sharp with faces as without (Sobel energy), and the portraits' measures hold", arguments: Portrait.all)
    func featuresSharp(_ portrait: Portrait) async throws {
        let before = try portrait.load()
        let context = try TestContexts.make()
        let withFaces = try await render(before, through: Self.beauty(portrait, before, faces: true), on: context)
        let without = try await render(before, through: Self.beauty(portrait, before, faces: false), on: context)
        let faces = BeautyReport(before: before, after: withFaces, portrait: portrait)
        let plain = BeautyReport(before: before, after: without, portrait: portrait)
        print("beauty with faces \(portrait.name): \(faces.summary)")
        #expect(faces.skinDrop >= 0.5 && faces.detailKept >= 0.85, "\(faces.summary)")
        for ((patch, kept), (_, plainKept)) in zip(faces.details, plain.details)
        where ["eye", "mouth", "glasses"].contains(where: { patch.name.contains($0) }) {
            #expect(kept >= 0.95 && kept >= plainKept - 0.03, "\(portrait.name), \(patch): kept \(kept) with faces, \(plainKept) without")
        }
    }

    /// The luma steps in grace_hopper's neck: for each row from the chin to the collar, the mean of
    /// the four rows below minus the four above, over the neck's middle columns, in levels 0...255.
    static func neckSteps(_ image: RGBAImage) -> [Double] {
        let luma = BeautyMetrics.luma(image), columns = 255..<300
        func rowMean(_ row: Int) -> Double { columns.reduce(0) { $0 + luma[row * image.width + $1] } / Double(columns.count) }
        return (300..<395).map { row in
            (1...4).reduce(0) { $0 + rowMean(row + $1) - rowMean(row - $1) } / 4
        }
    }

    @Test("No boundary where the smoothing ends: across grace_hopper's chin shadow (where it ends without faces) and its collar (with faces) the luma step is no larger than in the input")
    func neckBoundary() async throws {
        let portrait = Portrait.graceHopper
        let before = try portrait.load()
        let context = try TestContexts.make()
        let withFaces = try await render(before, through: Self.beauty(portrait, before, faces: true), on: context)
        let without = try await render(before, through: Self.beauty(portrait, before, faces: false), on: context)
        let input = Self.neckSteps(before), faces = Self.neckSteps(withFaces), plain = Self.neckSteps(without)
        // The largest growth of a step's size over the input's, in levels, and its row.
        func excess(_ steps: [Double], rows: Range<Int>) -> (levels: Double, row: Int) {
            rows.map { (abs(steps[$0 - 300]) - abs(input[$0 - 300]), $0) }.max { $0.0 < $1.0 } ?? (0, 0)
        }
        let chin = 320..<336, collar = 384..<395
        print("beauty neck: step growth (levels, row) at the chin \(excess(faces, rows: chin)) with faces, \(excess(plain, rows: chin)) without; "
              + "at the collar \(excess(faces, rows: collar)) with faces; anywhere in the neck \(excess(faces, rows: 300..<395)) with faces")
        #expect(excess(faces, rows: chin).levels <= 1, "chin: \(excess(faces, rows: chin))")
        #expect(excess(faces, rows: collar).levels <= 1, "collar: \(excess(faces, rows: collar))")
        #expect(excess(plain, rows: chin).levels > 3, "without faces the step at the chin grows (the issue's finding): \(excess(plain, rows: chin))")
    }

    func dump(_ images: [String: RGBAImage], _ portrait: Portrait) throws {
        guard let folder = ProcessInfo.processInfo.environment["ELIMAGE_DUMP"] else { return }
        for (name, image) in images { try PNGFile.write(image, to: "\(folder)/\(portrait.name)_\(name).png") }
    }
}

extension BeautyFaceTests {
    @Test("dev: masks", .enabled(if: ProcessInfo.processInfo.environment["ELIMAGE_DUMP"] != nil), arguments: Portrait.all)
    func devMasks(_ portrait: Portrait) async throws {
        let before = try portrait.load()
        let mask = try await render(before, through: Self.beauty(portrait, before, faces: true, mask: true))
        let after = try await render(before, through: Self.beauty(portrait, before, faces: true))
        try dump(["mask_faces": mask, "faces": after, "before": before], portrait)
    }
}
