import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// Gray frames (a grayscale filter's output, `TextureFrame.isMonochrome`) are packed to Y'CbCr with
/// only Y' computed and constant chroma, what the full conversion gives for the same gray pixels
/// (within the driver's rounding of exact values); and `ELIMAGE_DUMP_SHADERS` shows the shaders a pipeline runs.
@Suite("Monochrome packing and shader dumps", .closesContexts)
struct MonochromePackTests {
    /// A colour picture (RGBA), smooth and noisy parts, made up of `width` x `height` pixels.
    static func picture(width: Int, height: Int) -> [UInt8] {
        var state: UInt64 = 0x9e37_79b9_7f4a_7c15
        return (0..<(width * height)).flatMap { index -> [UInt8] in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let noise = UInt8(truncatingIfNeeded: state >> 59)
            let x = index % width, y = index / width
            return [UInt8(x * 255 / width) &+ noise, UInt8(y * 255 / height), UInt8((x + y) % 256), 255]
        }
    }

    /// Runs `pixels` through `filter` (if any) into an I420 buffer of `colorSpace`.
    static func i420(_ pixels: [UInt8], width: Int, height: Int, grayscale: Bool, colorSpace: ColorSpace,
                     context: RenderContext) async throws -> PixelBuffer {
        let result = Locked<PixelBuffer?>(nil)
        let input = RawDataInput()
        let output = try YUVDataOutput(format: .i420, colorSpace: colorSpace) { buffer in result.withLock { $0 = buffer } }
        if grayscale { input --> Grayscale() --> output } else { input --> output }
        try await input.process(pixels, width: width, height: height, format: .rgba, timestamp: .zero, on: context)
        #expect(try await output.finish() == 1)
        return try #require(result.withLock { $0 })
    }

    @Test("Grayscale → I420 equals the full conversion of the same gray pixels within one level (one-target and per-plane sizes)",
          arguments: [(64, 48, ColorSpace.bt709), (64, 48, .jpeg), (66, 50, .bt709)])
    func grayMatchesFullConversion(width: Int, height: Int, colorSpace: ColorSpace) async throws {
        let context = try TestContexts.make()
        let colour = Self.picture(width: width, height: height)
        // The gray pixels, read back as RGBA, then converted as an ordinary (not monochrome) frame.
        let gray = Locked<[UInt8]>([])
        let grayInput = RawDataInput()
        let grayOutput = RawDataOutput { image in gray.withLock { $0 = image.pixels } }
        grayInput --> Grayscale() --> grayOutput
        try await grayInput.process(colour, width: width, height: height, format: .rgba, timestamp: .zero, on: context)
        #expect(try await grayOutput.finish() == 1)
        let reference = try await Self.i420(gray.withLock { $0 }, width: width, height: height, grayscale: false,
                                            colorSpace: colorSpace, context: context)
        let fused = try await Self.i420(colour, width: width, height: height, grayscale: true,
                                        colorSpace: colorSpace, context: context)
        // Y' within one level: the full conversion's pack (`MatchedPack420`) and the Y'-only pass
        // compute the same expression, but llvmpipe stores it to 8 bits through different paths,
        // which round a value within 0.01 of a half either way (measured: 60 of 3072 samples).
        let differences = zip(fused.data, reference.data).map { abs(Int($0) - Int($1)) }
        #expect(differences.max() ?? 0 <= 1)
        #expect(differences.filter { $0 > 0 }.count * 100 <= 3 * width * height)
        #expect(reference.data[(width * height)...].allSatisfy { $0 == 128 }, "gray pixels have neutral chroma")
        let luma = width * height
        #expect(fused.data[luma...].allSatisfy { $0 == 128 })
        #expect(Set(fused.data[..<luma]).count > 50, "luma varies")
    }

    @Test("A gray frame shown in several slots (frame-rate conversion) packs as gray every time: one draw each, neutral chroma")
    func repeatedGrayFrames() async throws {
        let context = try TestContexts.make()
        let (width, height) = (64, 48)
        let frames = Locked<[PixelBuffer]>([])
        let input = RawDataInput()
        let converter = FrameRateConverter(rate: Y4MHeader.Ratio(50, 1))
        let output = try YUVDataOutput(format: .i420) { buffer in frames.withLock { $0.append(buffer) } }
        input --> Grayscale() --> converter --> output
        let before = await context.drawCallCount
        for number in 0..<3 {
            try await input.process(Self.picture(width: width, height: height), width: width, height: height, format: .rgba,
                                    timestamp: MediaTime(value: Int64(number), timescale: 25), on: context)
        }
        try await context.perform { context in input.finish(in: context) }
        let delivered = try await output.finish()
        let draws = await context.drawCallCount - before
        #expect(delivered == 6, "25 fps at 50: each picture twice")
        // A frame: the grayscale pass (RGBA input is uploaded, not drawn); each of the six slots:
        // the gray pack's one draw (a repeat packed as colour would take two).
        #expect(draws == 3 + 6, "\(draws) draws")
        let luma = width * height
        for (index, frame) in frames.withLock({ $0 }).enumerated() {
            #expect(frame.data[luma...].allSatisfy { $0 == 128 }, "frame \(index): neutral chroma")
        }
    }
}
