import ELImage
import ELImageTestSupport
import ELImageTesting
import Testing

/// Every filter of the catalogue through the same rules, as GStreamer's check harness runs every
/// element: odd and extreme sizes, each parameter at both ends of its range, values outside it (NaN
/// and infinities included) refused by name, and each run ended by `finish()` with no failure and
/// no thread left (`render`). A filter added to `FilterCatalog.standard` gets all of it.
@Suite("Filter conformance: every catalogue filter")
struct FilterConformanceTests {
    static let names = FilterCatalog.standard.entries.map(\.name)

    /// A picture of noise (alpha included), `width` x `height`.
    static func noise(_ width: Int, _ height: Int) -> RGBAImage {
        RGBAImage(width: width, height: height, pixels: randomBytes(width * height * 4, seed: UInt64(width * 31 + height)))
    }

    @Test("Odd and extreme sizes, 1x1 to 4097x3, come out whole at the input's size", arguments: names)
    func sizes(name: String) async throws {
        for (width, height) in [(1, 1), (2, 2), (3, 2), (17, 5), (4097, 3)] {
            let filter = try FilterCatalog.standard.make(name)
            let output = try await render(Self.noise(width, height), through: filter)
            #expect(output.width == width && output.height == height,
                    "\(name) at \(width)x\(height) made \(output.width)x\(output.height)")
            #expect(output.pixels.count == width * height * 4)
        }
    }

    @Test("Each parameter at both ends of its range renders a frame (at the input's size, unless it sets the size)", arguments: names)
    func extremes(name: String) async throws {
        let entry = try #require(FilterCatalog.standard.entry(named: name))
        for parameter in entry.parameters {
            for value in [parameter.range.lowerBound, parameter.range.upperBound] {
                let filter = try entry.make([parameter.name: value])
                let output = try await render(Self.noise(17, 5), through: filter)
                let setsSize = ["crop", "scale"].contains(name)
                #expect(setsSize ? output.width >= 1 && output.height >= 1 : output.width == 17 && output.height == 5,
                        "\(name) with \(parameter.name)=\(value) made \(output.width)x\(output.height)")
            }
        }
    }

    @Test("More frames hold no more textures: what a filter keeps across frames it keeps once, and no frame leaks",
          arguments: names)
    func noTextureGrowth(name: String) async throws {
        let filter = try FilterCatalog.standard.make(name)
        let pipeline = try EmbeddedPipeline(context: RenderContext()) { $0 --> filter }
        let frames = (0..<8).map { index in
            var image = Self.noise(64, 48)
            image.timestamp = MediaTime(value: Int64(index), timescale: 25)
            return image
        }
        try await endCleanly(pipeline) { pipeline in
            let context = pipeline.context
            func texturesInUse() async throws -> Int { try await context.perform { $0.poolStatistics.texturesInUse } }
            // Two frames, then six more, each run ended: a filter's state (a table, a skin model, a
            // background) is made by the first frames; a leak grows with every frame.
            try await pipeline.send(frames[0..<2])
            try await pipeline.sendEndOfStream()
            let afterTwo = try await texturesInUse()
            try await pipeline.send(frames[2...])
            try await pipeline.sendEndOfStream()
            let afterEight = try await texturesInUse()
            #expect(afterEight <= afterTwo, "\(name) held \(afterTwo) textures after 2 frames and \(afterEight) after 8")
        }
    }

    @Test("Closing the context while frames are on their way ends the run: the sends stop with an error, no thread is left",
          arguments: names)
    func closeInTheMiddle(name: String) async throws {
        let filter = try FilterCatalog.standard.make(name)
        let context = try RenderContext()
        let pipeline = try EmbeddedPipeline(context: context) { $0 --> filter }
        _ = try await pipeline.render(Self.noise(64, 48))
        // More frames on their way from another task while the context closes under them: each
        // either comes out or is refused with an error; none may hang or crash.
        let sender = Task {
            for index in 1...12 {
                var image = Self.noise(64, 48)
                image.timestamp = MediaTime(value: Int64(index), timescale: 25)
                _ = try? await pipeline.send(image)
            }
        }
        await context.close()
        _ = await sender.value  // how many came out depends on when the close landed
        #expect(context.runningThreadNames.isEmpty, "\(name): threads after close \(context.runningThreadNames)")
        do {
            _ = try await pipeline.send(Self.noise(64, 48))
            Issue.record("\(name): a frame sent to a closed context was taken")
        } catch {
            #expect("\(error)".contains("clos"), "\(name): a send after close failed without saying the context closed: \(error)")
        }
    }

    @Test("Values outside a parameter's range (NaN and infinities too) and unknown parameters are refused, naming them", arguments: names)
    func refusals(name: String) throws {
        let entry = try #require(FilterCatalog.standard.entry(named: name))
        for parameter in entry.parameters {
            let outside = [Double.nan, .infinity, -.infinity, parameter.range.lowerBound - 1, parameter.range.upperBound + 1]
            for value in outside {
                #expect {
                    try entry.make([parameter.name: value])
                } throws: { error in
                    "\(error)".contains("filter '\(name)': \(parameter.name)=") && "\(error)".contains("is outside")
                }
            }
        }
        #expect { try entry.make(["no-such-parameter": 1]) } throws: { "\($0)".contains("has no parameter 'no-such-parameter'") }
        #expect { try FilterCatalog.standard.make("no-such-filter") } throws: { "\($0)".contains("unknown filter 'no-such-filter'") }
    }
}
