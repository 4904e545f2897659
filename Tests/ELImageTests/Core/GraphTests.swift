import ELImage
import ELImageTestSupport
import Testing

/// A node that fails on every frame, to check failures stay contained.
private final class FailingNode: ImageInput, @unchecked Sendable {
    let inputSlots = InputSlots()
    func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        throw ELImageError.invalidState(node: "FailingNode", reason: "fails on purpose at \(frame.timestamp)")
    }
}

/// Records which frame objects (by texture) and timestamps arrive, on which input.
private final class FrameRecorder: ImageInput, @unchecked Sendable {
    let inputSlots: InputSlots
    let received = Collector<(texture: UInt32, timestamp: MediaTime, index: Int)>()
    init(inputs: Int = 1) { inputSlots = InputSlots(count: inputs) }
    func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        received.append((frame.texture, frame.timestamp, index))
    }
}

@Suite("Graph", .closesContexts)
struct GraphTests {
    let pixels = randomBytes(16 * 8 * 4, seed: 1)

    func push(_ input: RawDataInput, frame: Int, on context: RenderContext) async throws {
        try await input.process(pixels, width: 16, height: 8, format: .rgba,
                                timestamp: MediaTime(frame: Int64(frame), framesPerSecond: 30), on: context)
    }

    @Test("Fan-out delivers the same frame to three targets; removing one mid-stream stops only its frames")
    func fanOutAndRemoval() async throws {
        let context = try TestContexts.make()
        let input = RawDataInput()
        let gray = Grayscale()
        let targets = [FrameRecorder(), FrameRecorder(), FrameRecorder()]
        input --> gray
        for target in targets { gray --> target }

        for frame in 0..<3 { try await push(input, frame: frame, on: context) }
        gray.removeTarget(targets[1])
        for frame in 3..<6 { try await push(input, frame: frame, on: context) }

        let first = targets[0].received.values, second = targets[1].received.values, third = targets[2].received.values
        #expect(first.count == 6)
        #expect(second.count == 3)
        #expect(third.count == 6)
        // Same frame object (texture) and timestamp at every target, in order.
        #expect(first.map(\.texture) == third.map(\.texture))
        #expect(Array(first.prefix(3)).map(\.texture) == second.map(\.texture))
        #expect(first.map(\.timestamp) == (0..<6).map { MediaTime(frame: Int64($0), framesPerSecond: 30) })
        #expect(targets[1].inputSlots.isConnected(0) == false)
    }

    @Test("Targets added and removed from another task while frames flow")
    func concurrentRewiring() async throws {
        let context = try TestContexts.make()
        let input = RawDataInput()
        let gray = Grayscale()
        let steady = FrameRecorder()
        input --> gray --> steady
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for frame in 0..<60 { try await push(input, frame: frame, on: context) }
            }
            group.addTask {
                for _ in 0..<200 {
                    let extra = FrameRecorder()
                    gray.addTarget(extra)
                    await Task.yield()
                    gray.removeTarget(extra)
                }
            }
            try await group.waitForAll()
        }
        #expect(steady.received.count == 60)
        #expect(gray.targets.count == 1)
    }

    @Test("A failing node is reported to the error handler and the other targets keep working")
    func failureIsContained() async throws {
        let context = try TestContexts.make()
        let failures = Collector<String>()
        context.setErrorHandler { failures.append($0.description) }
        let input = RawDataInput()
        let healthy = FrameRecorder()
        input --> FailingNode()
        input --> healthy
        for frame in 0..<4 { try await push(input, frame: frame, on: context) }
        #expect(healthy.received.count == 4)
        #expect(failures.count == 4)
        #expect(failures.values.first?.contains("FailingNode") == true)
        #expect(failures.values.first?.contains("fails on purpose") == true)
    }

    @Test("A two-input node gets each source on its own input index")
    func multiInput() async throws {
        let context = try TestContexts.make()
        // out = |a - b| per channel: with b = a it is black, with b = 0 it is a.
        let difference = ShaderFilter(name: "test-difference", fragmentShader: """
            #version 300 es
            precision highp float;
            in vec2 textureCoordinate;
            uniform sampler2D inputImageTexture;
            uniform sampler2D inputImageTexture2;
            out vec4 fragColor;
            void main() {
                vec4 a = texture(inputImageTexture, textureCoordinate);
                vec4 b = texture(inputImageTexture2, textureCoordinate);
                fragColor = vec4(abs(a.rgb - b.rgb), 1.0);
            }
            """, inputCount: 2)
        let first = RawDataInput(), second = RawDataInput()
        let (output, images) = imageCollector()
        first --> difference
        second --> difference
        difference --> output
        #expect(first.targets.first?.index == 0)
        #expect(second.targets.first?.index == 1)

        let size = 8 * 4 * 4
        let a = [UInt8](repeating: 200, count: size), zeros = [UInt8](repeating: 0, count: size)
        // A frame on input 0 before input 1 has one is held back.
        try await first.process(a, width: 8, height: 4, format: .rgba, timestamp: .zero, on: context)
        #expect(images.count == 0)
        try await second.process(zeros, width: 8, height: 4, format: .rgba, timestamp: .zero, on: context)
        try await first.process(a, width: 8, height: 4, format: .rgba, timestamp: MediaTime(value: 1, timescale: 30), on: context)
        try await second.process(a, width: 8, height: 4, format: .rgba, timestamp: .zero, on: context)
        try await first.process(a, width: 8, height: 4, format: .rgba, timestamp: MediaTime(value: 2, timescale: 30), on: context)

        let results = images.values
        try #require(results.count == 2)
        #expect(results[0][3, 2] == SIMD4(200, 200, 200, 255))
        #expect(results[1][3, 2] == SIMD4(0, 0, 0, 255))
        #expect(results.map(\.timestamp) == [MediaTime(value: 1, timescale: 30), MediaTime(value: 2, timescale: 30)])
    }

    @Test("End of stream travels through filters to the sinks")
    func endOfStream() async throws {
        let context = try TestContexts.make()
        final class EndRecorder: ImageInput, @unchecked Sendable {
            let inputSlots = InputSlots()
            let ends = Collector<Int>()
            func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {}
            func endOfStream(at index: Int, in context: isolated RenderContext) { ends.append(index) }
        }
        let input = RawDataInput()
        let sink = EndRecorder()
        input --> Grayscale() --> Passthrough() --> sink
        try await context.perform { context in input.finish(in: context) }
        #expect(sink.ends.values == [0])
    }
}
