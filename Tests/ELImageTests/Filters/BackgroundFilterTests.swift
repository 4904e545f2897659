import ELImage
import ELImageTestSupport
import ELImageTesting
import Foundation
import Testing

/// The filters steered by a person mask (`BackgroundBlur`, `BackgroundReplace`, `PersonMaskFilter`),
/// on a generated 320×180 scene with a mask given by hand (no network): a bright, textured
/// "person" on the left, a darker striped background on the right.
@Suite("People: background filters", .closesContexts)
struct BackgroundFilterTests {
    static let (width, height) = (320, 180)

    /// The scene: columns left of `edge` are the person (bright random texture around 220), the
    /// rest background (gray 90 with 2-pixel stripes of ±40).
    static func scene(edge: Int) -> RGBAImage {
        var random = SeededGenerator(seed: 7)
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let value = x < edge ? 200 + Int(random.next() % 41) : ((x / 2) % 2 == 0 ? 130 : 50)
                for channel in 0..<3 { pixels[(y * width + x) * 4 + channel] = UInt8(value) }
            }
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    /// A 256×144 mask with the person left of the frame's column `edge`.
    static func mask(edge: Int) throws -> PersonMask {
        let columns = edge * 256 / width
        return try PersonMask(width: 256, height: 144, values: (0..<(256 * 144)).map { $0 % 256 < columns ? 255 : 0 })
    }

    /// The mean of channel `channel` over columns `columns` of rows 20..<160.
    static func mean(_ image: RGBAImage, columns: Range<Int>, channel: Int = 0) -> Double {
        var sum = 0.0
        for y in 20..<160 { for x in columns { sum += Double(image.pixels[(y * image.width + x) * 4 + channel]) } }
        return sum / Double(140 * columns.count)
    }

    /// The variance of channel 0 over columns `columns` of rows 20..<160.
    static func variance(_ image: RGBAImage, columns: Range<Int>) -> Double {
        let average = mean(image, columns: columns)
        var sum = 0.0
        for y in 20..<160 { for x in columns { sum += pow(Double(image.pixels[(y * image.width + x) * 4]) - average, 2) } }
        return sum / Double(140 * columns.count)
    }

    /// The largest difference between two pictures over columns `columns` (all rows, RGB).
    static func largestDifference(_ a: RGBAImage, _ b: RGBAImage, columns: Range<Int>) -> Int {
        var largest = 0
        for y in 0..<a.height {
            for x in columns {
                for channel in 0..<3 {
                    let offset = (y * a.width + x) * 4 + channel
                    largest = max(largest, abs(Int(a.pixels[offset]) - Int(b.pixels[offset])))
                }
            }
        }
        return largest
    }

    @Test("Background blur: the person is kept exactly, the stripes behind are blurred away, and no halo of the bright person spreads into the background (a plain blur of the frame makes one)")
    func blur() async throws {
        let frame = Self.scene(edge: 160)
        let context = try TestContexts.make()
        let filter = BackgroundBlur(strength: 0.7)
        filter.personMask = try Self.mask(edge: 160)
        let output = try await render(frame, through: filter, on: context)
        #expect(Self.largestDifference(output, frame, columns: 0..<150) <= 1)
        let before = Self.variance(frame, columns: 190..<310), after = Self.variance(output, columns: 190..<310)
        #expect(after < 0.05 * before, "stripe variance \(before) → \(after)")
        // Beside the person: the background's own mean (90), not lifted by the person's 220.
        let beside = Self.mean(output, columns: 161..<166)
        let plain = Self.mean(try await render(frame, through: GaussianBlur(sigma: 0.7 * 0.03 * 180), on: context), columns: 161..<166)
        print(String(format: "background blur: stripe variance %.0f → %.1f; beside the person %.1f (a plain blur %.1f)", before, after, beside, plain))
        #expect(abs(beside - 90) <= 8, "beside the person: \(beside)")
        #expect(plain - 90 > 15, "the control: a plain blur lifts it to \(plain)")
        #expect(filter.statistics == .init(framesBlurred: 1, framesWithoutMask: 0))
    }

    @Test("Background blur without a mask, or at strength 0, passes the frame on unchanged and counts it")
    func blurWithoutMask() async throws {
        let frame = Self.scene(edge: 160)
        let context = try TestContexts.make()
        let filter = BackgroundBlur()
        #expect(try await render(frame, through: filter, on: context) == frame)
        filter.personMask = try Self.mask(edge: 160)
        filter.strength = 0
        #expect(try await render(frame, through: filter, on: context) == frame)
        filter.strength = .nan
        #expect(filter.strength == 0)
        #expect(filter.statistics == .init(framesBlurred: 0, framesWithoutMask: 2))
    }

    /// A `width`×`height` picture of three vertical bands: red, green, blue.
    static func bands(width: Int, height: Int) -> RGBAImage {
        RGBAImage(width: width, height: height, pixels: (0..<(width * height)).flatMap { index -> [UInt8] in
            switch (index % width) * 3 / width {
            case 0: [200, 30, 30, 255]
            case 1: [30, 200, 30, 255]
            default: [30, 30, 200, 255]
            }
        })
    }

    @Test("Background replacement: a wider picture fills the frame centred (its sides cropped); the person is kept, with the new scene's light at the edge")
    func replace() async throws {
        let frame = Self.scene(edge: 64)
        let context = try TestContexts.make()
        // 2:1 into 16:9: the picture's x from 0.056 to 0.944 spans the frame, so its band edges at
        // 1/3 and 2/3 fall at the frame's columns 100 and 220.
        let filter = try BackgroundReplace(background: Self.bands(width: 400, height: 200))
        filter.personMask = try Self.mask(edge: 64)
        let output = try await render(frame, through: filter, on: context)
        func colour(_ x: Int) -> [Int] { (0..<3).map { Int(Self.mean(output, columns: x..<(x + 1), channel: $0).rounded()) } }
        #expect(colour(92) == [200, 30, 30] && colour(108) == [30, 200, 30], "\(colour(92)), \(colour(108))")
        #expect(colour(212) == [30, 200, 30] && colour(228) == [30, 30, 200], "\(colour(212)), \(colour(228))")
        #expect(Self.largestDifference(output, frame, columns: 0..<52) <= 1)
        // The light wrap: the person's last columns lean towards the red beside them; without it they do not.
        filter.wrap = 0
        let unwrapped = try await render(frame, through: filter, on: context)
        let redLean = { (image: RGBAImage) in Self.mean(image, columns: 61..<64, channel: 0) - Self.mean(image, columns: 61..<64, channel: 1) }
        print(String(format: "background replacement: red over green at the person's edge %.1f with the light wrap, %.1f without", redLean(output), redLean(unwrapped)))
        #expect(redLean(output) > redLean(unwrapped) + 5)
        #expect(filter.statistics == .init(framesReplaced: 2, framesWithoutMask: 0))
    }

    @Test("Background replacement by a second source: its newest frame is the background")
    func replaceBySecondSource() async throws {
        let filter = try BackgroundReplace()
        filter.personMask = try Self.mask(edge: 160)
        let blue = RGBAImage(width: 160, height: 90, pixels: (0..<(160 * 90)).flatMap { _ in [20, 40, 220, 255] as [UInt8] })
        let output = try await render(base: Self.scene(edge: 160), top: blue, through: filter)
        #expect((0..<3).map { Int(Self.mean(output, columns: 200..<300, channel: $0).rounded()) } == [20, 40, 220])
        #expect(Self.mean(output, columns: 0..<150) > 200)
    }

    @Test("Background replacement without a background picture or a second source passes the frame on, counted")
    func replaceWithoutBackground() async throws {
        let filter = try BackgroundReplace()
        filter.personMask = try Self.mask(edge: 160)
        let frame = Self.scene(edge: 160)
        #expect(try await render(frame, through: filter) == frame)
        #expect(filter.statistics.framesWithoutMask == 1)
        #expect(throws: ELImageError.self) { try BackgroundReplace(background: RGBAImage(width: 4, height: 4, pixels: [])) }
    }

    @Test("The mask as frames: white on the person, black behind, a few columns of anti-aliased edge; black before any mask")
    func maskFrames() async throws {
        let frame = Self.scene(edge: 160)
        let context = try TestContexts.make()
        let filter = PersonMaskFilter()
        let empty = try await render(frame, through: filter, on: context)
        #expect(empty.pixels.enumerated().allSatisfy { $0.offset % 4 == 3 || $0.element == 0 })
        filter.personMask = try Self.mask(edge: 160)
        let output = try await render(frame, through: filter, on: context)
        #expect(Self.mean(output, columns: 0..<150) == 255 && Self.mean(output, columns: 170..<320) == 0)
        let partial = (150..<170).filter { (1..<255).contains(output.pixels[(90 * 320 + $0) * 4]) }
        #expect(partial.count <= 4, "edge columns between black and white: \(partial)")
        #expect(filter.statistics == .init(framesMasked: 1, framesWithoutMask: 1))
    }

    @Test("Temporal smoothing: a mask that moves a little settles over frames, one that moves much is followed at once")
    func temporal() async throws {
        let context = try TestContexts.make()
        let filter = PersonMaskFilter()
        let frame = RGBAImage(width: Self.width, height: Self.height, pixels: [UInt8](repeating: 128, count: Self.width * Self.height * 4))
        func level(after mask: PersonMask) async throws -> Int {
            filter.personMask = mask
            return Int(try await render(frame, through: filter, on: context).pixels[(90 * 320 + 100) * 4])
        }
        let uniform = { (value: UInt8) in try PersonMask(width: 256, height: 144, values: [UInt8](repeating: value, count: 256 * 144)) }
        #expect(try await level(after: try uniform(255)) == 255)
        // 255 → 180 (a small change, noise): 0.6 of the old value stays at first.
        let small = try await level(after: try uniform(180))
        #expect(small == 255, "alpha after a small change: \(small)")  // 0.6·1 + 0.4·0.71 = 0.88 → still above the edge
        #expect(try await level(after: try uniform(0)) == 0)  // a large change: followed at once
    }
}

extension BackgroundFilterTests {
    @Test("Background replacement swaps the old background's share of the edge for the new one: a gray person's soft edge on blue, replaced by green, keeps no blue fringe")
    func replaceSwapsTheEdgesOldBackground() async throws {
        // A gray person left of column 60, blue right of 68, a linear alpha ramp between; the mask is that alpha.
        func alpha(_ x: Int) -> Double { min(1, max(0, Double(68 - x) / 8)) }
        var pixels = [UInt8](repeating: 255, count: Self.width * Self.height * 4)
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                let a = alpha(x)
                for (channel, value) in [(0, a * 200 + (1 - a) * 20), (1, a * 200 + (1 - a) * 20), (2, a * 200 + (1 - a) * 220)] {
                    pixels[(y * Self.width + x) * 4 + channel] = UInt8(value.rounded())
                }
            }
        }
        let frame = RGBAImage(width: Self.width, height: Self.height, pixels: pixels)
        let green = RGBAImage(width: 64, height: 36, pixels: (0..<(64 * 36)).flatMap { _ in [20, 200, 20, 255] as [UInt8] })
        let filter = try BackgroundReplace(background: green, wrap: 0)
        filter.personMask = try PersonMask(width: 256, height: 144, values: (0..<(256 * 144)).map { index in
            UInt8((alpha(((index % 256) * Self.width + Self.width / 2) / 256) * 255).rounded())
        })
        let output = try await render(frame, through: filter)
        // Blue over red: 0 for gray mixed with green; the input's edge holds up to 200 of it.
        let fringe = (54..<74).map { x in Self.mean(output, columns: x..<(x + 1), channel: 2) - Self.mean(output, columns: x..<(x + 1), channel: 0) }
        let input = (54..<74).map { x in Self.mean(frame, columns: x..<(x + 1), channel: 2) - Self.mean(frame, columns: x..<(x + 1), channel: 0) }
        print(String(format: "background replacement: blue over red across the edge at most %.1f levels (the input's %.1f)",
                     fringe.max() ?? 0, input.max() ?? 0))
        #expect((fringe.max() ?? 0) <= 20, "\(fringe)")  // a tenth of the input's; 51 when the edge is composited as it is
        #expect((input.max() ?? 0) >= 150)
    }
}
