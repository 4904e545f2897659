@testable import ELImage
import ELImageTestSupport
import Foundation
import Testing

/// The graph plan (`GraphPlan`): walked once per wiring, not per frame; rewiring while frames flow
/// takes effect at the next picture; end-of-stream goes where the frames went; the printed plan
/// says what runs and why a line is not fused.
@Suite("Graph plan", .closesContexts)
struct GraphPlanTests {
    /// A 64x32 I420 picture of mid gray with a colour cast, at frame `number`.
    static func picture(_ number: Int, width: Int = 64, height: Int = 32) throws -> PixelBuffer {
        var data = [UInt8](repeating: 120, count: width * height)
        data += [UInt8](repeating: 90, count: width * height / 4) + [UInt8](repeating: 170, count: width * height / 4)
        return try PixelBuffer(format: .i420, width: width, height: height, data: data,
                               timestamp: MediaTime(value: Int64(number), timescale: 25))
    }

    /// A gray filter of a user's (a `PointFilter`) that counts the frames and ends it sees itself.
    final class CountingGray: PointFilter {
        struct Parameters: Sendable {}
        let parameters = Parameters()
        let colorPiece: ColorPiece
        let pass: ShaderPass
        let outputs = OutputTargets()
        let frames = Locked(0)
        let ends = Locked(0)
        var producesMonochrome: Bool { true }

        init() throws {
            colorPiece = try ColorPiece(name: "counting_gray", source: """
                vec4 PIECE_apply(vec4 color) { float y = dot(color.rgb, vec3(0.299, 0.587, 0.114)); return vec4(vec3(y), color.a); }
                """)
            pass = ShaderPass(colorPiece: colorPiece)
        }

        func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
            frames.withLock { $0 += 1 }
            let output = try pass.draw([frame], extra: [], size: (frame.width, frame.height),
                                       uniforms: [:], in: context)
            deliver(output, in: context)
        }

        func endOfStream(at index: Int, in context: isolated RenderContext) {
            ends.withLock { $0 += 1 }
            deliverEndOfStream(in: context)
        }
    }

    /// A sink of the frames' ends: a `FrameStream`'s sequence ends at end-of-stream.
    static func drain(_ stream: FrameStream) -> Task<Int, any Error> {
        Task { try await stream.frames.reduce(0) { count, _ in count + 1 } }
    }

    @Test("A fused line agrees with the pictures' format once, and again only when the format changes")
    func agreedOncePerFormat() async throws {
        let context = try TestContexts.make()
        let input = RawDataInput()
        let output = try YUVDataOutput(format: .i420) { _ in }
        input --> Grayscale() --> output
        for number in 0..<5 { try await input.process(try Self.picture(number), on: context) }
        #expect(input.outputs.plans.agreements == 1)
        // A new size: agreed again, still fused.
        for number in 5..<8 { try await input.process(try Self.picture(number, width: 128, height: 64), on: context) }
        #expect(input.outputs.plans.agreements == 2)
        var explained = try #require(PlanExplanation(of: input, threads: []))
        #expect(explained.description.contains("latest picture: fused"), "\(explained)")
        // A size the fused passes cannot take: agreed once that it is not fused, then asked no more.
        for number in 8..<11 { try await input.process(try Self.picture(number, width: 36, height: 20), on: context) }
        #expect(input.outputs.plans.agreements == 3)
        explained = try #require(PlanExplanation(of: input, threads: []))
        #expect(explained.description.contains("36x20 is not a multiple of 8x4"), "\(explained)")
        #expect(input.outputs.plans.compilations == 1)
        #expect(try await output.finish() == 11)
    }

    @Test("The plan is compiled once for many pictures, and again only after a rewiring")
    func compiledOncePerWiring() async throws {
        let context = try TestContexts.make()
        let input = RawDataInput()
        let gray = Grayscale()
        let output = try YUVDataOutput(format: .i420) { _ in }
        input --> gray --> output
        for number in 0..<6 { try await input.process(try Self.picture(number), on: context) }
        #expect(input.outputs.plans.compilations == 1)

        // Rewired while the stream goes on: a counter beside the line (an observer keeps it fused).
        let counter = FrameCounter()
        gray.addTarget(counter)
        for number in 6..<10 { try await input.process(try Self.picture(number), on: context) }
        #expect(input.outputs.plans.compilations == 2)
        #expect(counter.count == 4)
        let explained = try #require(PlanExplanation(of: input, threads: []))
        #expect(explained.description.contains("latest picture: fused"), "\(explained)")

        // A second sink after the filter: fan-out, the separate passes from the next picture on.
        let second = try YUVDataOutput(format: .i420) { _ in }
        gray.addTarget(second)
        try await input.process(try Self.picture(10), on: context)
        #expect(input.outputs.plans.compilations == 3)
        let fannedOut = try #require(PlanExplanation(of: input, threads: []))
        #expect(fannedOut.description.contains("not fused: fan-out to YUVDataOutput"), "\(fannedOut)")
        #expect(try await output.finish() == 11)
        #expect(try await second.finish() == 1)
    }

    @Test("End-of-stream goes through every node, fused or not: the pictures went through them too")
    func endOfStreamFollowsTheFrames() async throws {
        let context = try TestContexts.make()
        for fused in [true, false] {
            let input = RawDataInput(fusingPasses: fused)
            let gray = try CountingGray()
            let stream = try FrameStream(format: .i420)
            input --> gray --> stream
            let frames = Self.drain(stream)
            for number in 0..<3 { try await input.process(try Self.picture(number), on: context) }
            try await context.perform { input.finish(in: $0) }
            #expect(try await frames.value == 3, "the stream ended after its frames (fused: \(fused))")
            #expect(gray.frames.withLock { $0 } == (fused ? 0 : 3), "fused, the filter takes pictures, not frames")
            #expect(gray.ends.withLock { $0 } == 1, "end-of-stream went through the filter (fused: \(fused))")
            try await stream.finish()
        }
    }

    @Test("A group of colour filters, a chain and a filter of one's own fuse as one line; the plan prints the tree")
    func groupsAndOwnFiltersFuse() async throws {
        let context = try TestContexts.make()
        let input = RawDataInput()
        let group = try FilterGroup([Brightness(0.05), Contrast(1.1)])
        let own = try CountingGray()
        let counter = FrameCounter()
        let output = try YUVDataOutput(format: .i420) { _ in }
        input --> group --> own --> output
        input.addTarget(counter)
        let before = await context.drawCallCount
        try await input.process(try Self.picture(0), on: context)
        #expect(await context.drawCallCount - before == 1, "one draw: the fused line into gray Y' rows")
        #expect(own.frames.withLock { $0 } == 0)
        let lines = try #require(PlanExplanation(of: input, threads: ["ELImage.render"])).lines
        #expect(lines.count == 8, "\(lines)")
        #expect(lines[1].hasPrefix("├── FilterGroup#"), "\(lines)")
        #expect(lines[2].contains("ColorChain#") && lines[2].contains("1 pass (brightness → contrast)"), "\(lines)")
        #expect(lines[3].contains("CountingGray#") && lines[3].contains("1 pass (counting_gray)"), "\(lines)")
        #expect(lines[4].contains("YUVDataOutput#") && lines[4].contains("packs I420 (matched chroma)"), "\(lines)")
        #expect(lines[5].hasPrefix("└── FrameCounter#") && lines[5].hasSuffix("(observer)"), "\(lines)")
        #expect(lines[6].hasPrefix("latest picture: fused, 1 pass from the uploaded planes: "
                                   + "Y'CbCr → brightness → contrast → counting_gray → the Y' rows of YUVDataOutput#"), "\(lines)")
        #expect(try await output.finish() == 1)
    }

    @Test("Why a picture is not fused: a blur, RGB input, a size off the 8x4 grid, a turned picture")
    func reasons() async throws {
        let context = try TestContexts.make()
        func reason(_ wire: (RawDataInput, YUVDataOutput) -> Void, picture: PixelBuffer? = nil,
                    orientation: Orientation = .up, format: PixelFormat = .i420,
                    siting: ChromaLocation? = .left) async throws -> String {
            let input = RawDataInput()
            let output = try YUVDataOutput(format: format, chromaLocation: siting) { _ in }
            wire(input, output)
            try await input.process(picture ?? Self.picture(0), orientation: orientation, on: context)
            _ = try await output.finish()
            return try #require(PlanExplanation(of: input, threads: [])).lines.last(where: { $0.hasPrefix("latest picture") }) ?? ""
        }
        let blur = try await reason { input, output in input --> GaussianBlur(sigma: 1) --> output }
        #expect(blur.contains("not fused: GaussianBlur#") && blur.contains("is not a per-pixel colour filter"), "\(blur)")
        // A crop is skipped for a picture it keeps whole, and names itself when it cuts.
        let cut = try await reason { input, output in input --> Crop(Crop.Region(x: 8, y: 4, width: 32, height: 16)) --> output }
        #expect(cut.contains("not fused: Crop#") && cut.contains("changes a "), "\(cut)")
        let whole = try await reason { input, output in input --> Crop(Crop.Region(x: 0, y: 0, width: 16384, height: 16384)) --> output }
        #expect(whole.hasPrefix("latest picture: fused"), "\(whole)")
        // A plain conversion fuses into matched 4:2:0 (it saves the conversion pass), not into NV12.
        let none = try await reason { input, output in input --> output }
        #expect(none.contains("fused, 1 pass from the uploaded planes: Y'CbCr → YUVDataOutput#") && none.contains("Y' plane"),
                "\(none)")
        // Top-left-sited chroma kept by the sink: the two-pass pack does not take it, so the line
        // makes RGBA; a sink siting its own chroma (MPEG-2 "left") packs in the two passes.
        var topLeft = try Self.picture(0)
        topLeft.chromaLocation = .topLeft
        let kept = try await reason({ input, output in input --> Brightness(0.1) --> output }, picture: topLeft, siting: nil)
        #expect(kept.contains("fused, 1 pass from the uploaded planes: Y'CbCr → brightness → RGBA, then YUVDataOutput#")
                && kept.contains("(chroma sited top left"), "\(kept)")
        let resited = try await reason({ input, output in input --> Brightness(0.1) --> output }, picture: topLeft)
        #expect(resited.contains("Y' plane and chroma averages, then 1 pass for both chroma planes"), "\(resited)")
        let nv12 = try await reason({ input, output in input --> output }, format: .nv12)
        #expect(nv12.contains("not fused: no colour filter before YUVDataOutput#"), "\(nv12)")
        let rgba = try PixelBuffer(format: .rgba, width: 64, height: 32)
        let rgb = try await reason({ input, output in input --> Grayscale() --> output }, picture: rgba)
        #expect(rgb.contains("not fused: the input is rgba"), "\(rgb)")
        let odd = try PixelBuffer(format: .i420, width: 60, height: 32)
        let size = try await reason({ input, output in input --> Grayscale() --> output }, picture: odd)
        #expect(size.contains("not fused: 60x32 is not a multiple of 8x4"), "\(size)")
        let turned = try await reason({ input, output in input --> Grayscale() --> output },
                                      orientation: Orientation(rotation: .clockwise90, mirrored: false))
        #expect(turned.contains("not fused: the picture is turned"), "\(turned)")
    }

    @Test("A source's plan keeps neither the source nor its graph alive (no cycle through the cache)")
    func planMakesNoCycle() async throws {
        let context = try TestContexts.make()
        weak var weakInput: RawDataInput?
        weak var weakGray: Grayscale?
        do {
            let input = RawDataInput()
            let gray = Grayscale()
            let output = try YUVDataOutput(format: .i420) { _ in }
            input --> gray --> output
            try await input.process(try Self.picture(0), on: context)
            #expect(input.outputs.plans.compilations == 1)
            #expect(try await output.finish() == 1)
            weakInput = input
            weakGray = gray
        }
        #expect(weakInput == nil, "the source outlived its last reference")
        #expect(weakGray == nil, "the graph outlived its source")
    }
}
