import ELImage
import ELImageDetection
import ELImageMedia
import ELImageTestSupport
import ELImageTesting
import Foundation
import Testing

/// People, pixel by pixel: MediaPipe's selfie segmentation network through the detector branch
/// (GPU shrink, RGBA readback, OpenCV's DNN module), refined on the GPU for each frame
/// (`PersonMaskFilter`), against the person marked by hand on the bundled portraits (a polygon
/// along the outline at 1.5× zoom: hair, hat and clothes count as the person; the astronaut's
/// helmet, held against her, too) and on generated composites (each portrait's marked person
/// pasted on other pictures, where the polygon moves with it).
@Suite("People: segmentation", .closesContexts)
struct PersonSegmentationTests {
    /// The hand-marked outlines, in the pictures' pixels (the pictures of ELImageDetection's article on people show them).
    static let hopperOutline: [SIMD2<Double>] = [
        [177, 63], [200, 33], [233, 25], [280, 27], [320, 40], [343, 60], [353, 87], [370, 107], [370, 147], [373, 167],
        [370, 220], [360, 253], [347, 280], [333, 307], [333, 333], [360, 353], [413, 370], [467, 390], [493, 407],
        [507, 433], [512, 453], [512, 600], [17, 600], [20, 467], [30, 400], [53, 373], [93, 357], [147, 340], [180, 330],
        [200, 320], [193, 293], [170, 267], [157, 220], [153, 173], [150, 120], [160, 93],
    ]
    static let astronautOutline: [SIMD2<Double>] = [
        [200, 20], [233, 15], [273, 27], [297, 53], [300, 87], [287, 120], [280, 160], [303, 200], [303, 233], [320, 267],
        [347, 287], [357, 313], [363, 333], [373, 345], [427, 347], [467, 367], [493, 400], [507, 453], [512, 512],
        [30, 512], [27, 427], [23, 373], [27, 320], [40, 280], [67, 247], [113, 220], [117, 193], [127, 167], [153, 150],
        [177, 120], [157, 87], [157, 53], [173, 30],
    ]

    /// Whether each pixel centre of a `width`×`height` picture is inside `outline` (even-odd rule).
    static func rasterized(_ outline: [SIMD2<Double>], width: Int, height: Int) -> [Bool] {
        var inside = [Bool](repeating: false, count: width * height)
        for y in 0..<height {
            let py = Double(y) + 0.5
            var crossings: [Double] = []
            for index in outline.indices {
                let a = outline[index], b = outline[(index + 1) % outline.count]
                if (a.y <= py) != (b.y <= py) { crossings.append(a.x + (py - a.y) / (b.y - a.y) * (b.x - a.x)) }
            }
            crossings.sort()
            for x in 0..<width {
                let px = Double(x) + 0.5
                inside[y * width + x] = crossings.filter { $0 < px }.count % 2 == 1
            }
        }
        return inside
    }

    /// Intersection over union of two masks.
    static func iou(_ a: [Bool], _ b: [Bool]) -> Double {
        let both = zip(a, b).filter { $0 && $1 }.count, either = zip(a, b).filter { $0 || $1 }.count
        return either == 0 ? 1 : Double(both) / Double(either)
    }

    /// The refined masks `PersonMaskFilter` draws for each picture, with the segmenter's mask of
    /// that picture (found first, waited for), as person / not person at each pixel.
    static func refinedMasks(_ images: [RGBAImage], segmenter: PersonSegmenter) async throws -> (refined: [[Bool]], raw: [PersonMask], levels: [RGBAImage]) {
        let filter = PersonMaskFilter()
        let people = try DetectorOutput(detector: segmenter, settings: .init(waitsForDetector: true)) { filter.follow($0) }
        let pipeline = try EmbeddedPipeline(context: TestContexts.make()) { input in
            input --> people
            return input --> filter
        }
        var refined: [[Bool]] = [], raw: [PersonMask] = [], levels: [RGBAImage] = []
        for (index, image) in images.enumerated() {
            var image = image
            image.timestamp = MediaTime(frame: Int64(index), framesPerSecond: 25)
            let output = try await pipeline.render(image)
            levels.append(output)
            refined.append(stride(from: 0, to: output.pixels.count, by: 4).map { output.pixels[$0] >= 128 })
            raw.append(try #require(filter.personMask))
        }
        await people.close()
        return (refined, raw, levels)
    }

    /// The network's own mask, scaled to `width`×`height` by nearest texel, as person / not person.
    static func upscaled(_ mask: PersonMask, width: Int, height: Int) -> [Bool] {
        (0..<(width * height)).map { index in
            let x = (index % width) * mask.width / width, y = (index / width) * mask.height / height
            return mask.value(x: x, y: y) >= 128
        }
    }

    @Test("The portraits: the refined mask covers the marked person with IoU ≥ 0.9",
          arguments: [("grace_hopper.jpg", hopperOutline), ("astronaut.png", astronautOutline)])
    func portraits(name: String, outline: [SIMD2<Double>]) async throws {
        let image = try picture(Repository.path("Examples/Media/" + name))
        let (refined, raw, levels) = try await Self.refinedMasks([image], segmenter: try PersonSegmenter())
        let marked = Self.rasterized(outline, width: image.width, height: image.height)
        let refinedIoU = Self.iou(refined[0], marked), rawIoU = Self.iou(Self.upscaled(raw[0], width: image.width, height: image.height), marked)
        print("\(name): IoU against the marked person \(String(format: "%.3f", refinedIoU)) refined, \(String(format: "%.3f", rawIoU)) the network's mask scaled")
        if let folder = ProcessInfo.processInfo.environment["ELIMAGE_DUMP"] { try PNGFile.write(levels[0], to: "\(folder)/mask_\(name).png") }
        #expect(refinedIoU >= 0.9, "\(name): IoU \(refinedIoU)")
        #expect(refinedIoU >= rawIoU - 0.005, "refining should not lose: \(refinedIoU) against \(rawIoU)")
    }

    /// `portrait`'s marked person (inside `outline`) scaled by `scale` and placed with its
    /// outline's box's top left at `origin` on `background` (bilinear), and the outline moved with it.
    static func pasted(_ portrait: RGBAImage, outline: [SIMD2<Double>], scale: Double, at origin: SIMD2<Double>,
                       on background: RGBAImage) -> (image: RGBAImage, outline: [SIMD2<Double>]) {
        let inside = rasterized(outline, width: portrait.width, height: portrait.height)
        var pixels = background.pixels
        for y in 0..<background.height {
            for x in 0..<background.width {
                let u = (Double(x) + 0.5 - origin.x) / scale, v = (Double(y) + 0.5 - origin.y) / scale
                let px = Int(u), py = Int(v)
                guard u >= 0, v >= 0, px < portrait.width, py < portrait.height, inside[py * portrait.width + px] else { continue }
                let fx = u - 0.5, fy = v - 0.5
                let x0 = max(0, min(portrait.width - 2, Int(fx.rounded(.down)))), y0 = max(0, min(portrait.height - 2, Int(fy.rounded(.down))))
                let ax = min(1, max(0, fx - Double(x0))), ay = min(1, max(0, fy - Double(y0)))
                for channel in 0..<3 {
                    func at(_ i: Int, _ j: Int) -> Double { Double(portrait.pixels[(j * portrait.width + i) * 4 + channel]) }
                    let value = (at(x0, y0) * (1 - ax) + at(x0 + 1, y0) * ax) * (1 - ay) + (at(x0, y0 + 1) * (1 - ax) + at(x0 + 1, y0 + 1) * ax) * ay
                    pixels[(y * background.width + x) * 4 + channel] = UInt8(value.rounded())
                }
            }
        }
        return (RGBAImage(width: background.width, height: background.height, pixels: pixels),
                outline.map { origin + $0 * scale })
    }

    @Test("Generated composites (each portrait's marked person, scaled and placed on a test pattern, a frame of the clip and noise, 640×360): IoU ≥ 0.9 each")
    func composites() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let backgrounds = try FaceLandmarkTests.backgrounds(in: folder)
        let portraits = [(try picture(Repository.path("Examples/Media/grace_hopper.jpg")), Self.hopperOutline),
                         (try picture(Repository.path("Examples/Media/astronaut.png")), Self.astronautOutline)]
        var scenes: [(image: RGBAImage, outline: [SIMD2<Double>])] = []
        for (index, background) in backgrounds.enumerated() {
            for (which, portrait) in portraits.enumerated() {
                // Standing at the bottom edge, as in a call: left, middle or right, at 0.6 of their size.
                let scale = 0.6, width = Double(portrait.0.width) * scale, height = Double(portrait.0.height) * scale
                let x = [40.0, (640 - width) / 2, 600 - width][(index + which) % 3]
                scenes.append(Self.pasted(portrait.0, outline: portrait.1, scale: scale, at: [x, 360 - height], on: background))
            }
        }
        let (refined, raw, levels) = try await Self.refinedMasks(scenes.map(\.image), segmenter: try PersonSegmenter())
        var results: [String] = []
        for (index, scene) in scenes.enumerated() {
            let marked = Self.rasterized(scene.outline, width: 640, height: 360)
            let score = Self.iou(refined[index], marked)
            results.append(String(format: "%.3f (network %.3f)", score, Self.iou(Self.upscaled(raw[index], width: 640, height: 360), marked)))
            if let dump = ProcessInfo.processInfo.environment["ELIMAGE_DUMP"] {
                try PNGFile.write(scene.image, to: "\(dump)/composite_\(index).png")
                try PNGFile.write(levels[index], to: "\(dump)/composite_\(index)_mask.png")
            }
            #expect(score >= 0.9, "composite \(index): IoU \(score)")
        }
        print("composites: IoU " + results.joined(separator: ", "))
    }

    @Test("A still subject over 30 noisy frames: the refined edge flickers less than half as much as the network's own mask")
    func stillSubjectFlicker() async throws {
        let hopper = try picture(Repository.path("Examples/Media/grace_hopper.jpg"))
        let backdrop = RGBAImage(width: 640, height: 360, pixels: (0..<(640 * 360)).flatMap { index -> [UInt8] in
            let x = index % 640
            return [UInt8(60 + x / 8), 110, UInt8(200 - x / 8), 255]
        })
        let scene = Self.pasted(hopper, outline: Self.hopperOutline, scale: 0.5, at: [190, 60], on: backdrop)
        var random = SeededGenerator(seed: 30)
        let frames = (0..<30).map { _ in
            RGBAImage(width: 640, height: 360, pixels: scene.image.pixels.enumerated().map { offset, value in
                guard offset % 4 != 3 else { return value }
                let noise = Int(random.next() % 25) - 12 + Int(random.next() % 25) - 12  // triangular, ±24 levels
                return UInt8(max(0, min(255, Int(value) + noise)))
            })
        }
        let (_, raw, levels) = try await Self.refinedMasks(frames, segmenter: try PersonSegmenter())
        // The band within 6 pixels of the marked outline, where the edge is.
        let marked = Self.rasterized(scene.outline, width: 640, height: 360)
        var band: [Int] = []
        for y in 6..<354 {
            for x in 6..<634 {
                let here = marked[y * 640 + x]
                if [(-6, 0), (6, 0), (0, -6), (0, 6)].contains(where: { marked[(y + $0.1) * 640 + x + $0.0] != here }) { band.append(y * 640 + x) }
            }
        }
        /// Mean over the band of each pixel's standard deviation over the frames (after the first
        /// five, once the temporal smoothing has settled), in levels.
        func flicker(_ value: (Int, Int) -> Double) -> Double {
            band.map { pixel in
                let values = (5..<frames.count).map { value($0, pixel) }
                let mean = values.reduce(0, +) / Double(values.count)
                return (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count)).squareRoot()
            }.reduce(0, +) / Double(band.count)
        }
        let refinedFlicker = flicker { frame, pixel in Double(levels[frame].pixels[pixel * 4]) }
        let networkFlicker = flicker { frame, pixel in
            // The network's mask scaled bilinearly, as a plain upload would show it.
            let mask = raw[frame]
            let u = (Double(pixel % 640) + 0.5) * Double(mask.width) / 640 - 0.5, v = (Double(pixel / 640) + 0.5) * Double(mask.height) / 360 - 0.5
            let x0 = Int(u.rounded(.down)), y0 = Int(v.rounded(.down)), ax = u - Double(x0), ay = v - Double(y0)
            func at(_ x: Int, _ y: Int) -> Double { Double(mask.value(x: x, y: y)) }
            return (at(x0, y0) * (1 - ax) + at(x0 + 1, y0) * ax) * (1 - ay) + (at(x0, y0 + 1) * (1 - ax) + at(x0 + 1, y0 + 1) * ax) * ay
        }
        print(String(format: "still subject, 30 noisy frames: edge flicker %.2f levels refined, %.2f the network's mask (%d band pixels)",
                     refinedFlicker, networkFlicker, band.count))
        #expect(refinedFlicker < 0.5 * networkFlicker, "refined \(refinedFlicker), network \(networkFlicker)")
        #expect(refinedFlicker < 8, "refined edge flicker \(refinedFlicker) levels")
    }

    @Test("A missing network: the error names the file and the command that installs it")
    func missingNetwork() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let error = #expect(throws: ELImageError.self) { try PersonSegmenter(modelFolder: folder.path("none")) }
        let message = error.map { "\($0)" } ?? ""
        #expect(message.contains(folder.path("none") + "/selfie_segmentation") && message.contains("make deps"), "\(message)")
    }
}
