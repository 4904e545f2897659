@testable import ELImage
import ELImageTestSupport
import Testing

@Suite("ShaderProgram", .closesContexts)
struct ShaderProgramTests {
    static let broken = """
        #version 300 es
        precision highp float;
        in vec2 textureCoordinate;
        uniform sampler2D inputImageTexture;
        out vec4 fragColor;
        void main() {
            vec4 color = texture(inputImageTexture, textureCoordinate);
            fragColor = colour * 2.0;
        }
        """

    @Test("A shader that does not compile names the shader and its failing line; the graph keeps working")
    func compileError() async throws {
        let context = try TestContexts.make()
        let failures = Collector<NodeFailure>()
        context.setErrorHandler { failures.append($0) }
        let input = RawDataInput()
        let broken = ShaderFilter(name: "broken-test", fragmentShader: Self.broken)
        let (output, images) = imageCollector()
        input --> broken
        input --> Grayscale() --> output
        try await input.process(randomBytes(4 * 4 * 4, seed: 2), width: 4, height: 4, format: .rgba,
                                timestamp: .zero, on: context)

        let failure = try #require(failures.values.first)
        let error = try #require(failure.error as? ELImageError)
        guard case let .shaderCompile(shader, line, sourceLine, log) = error else {
            Issue.record("expected a compile error, got \(error)")
            return
        }
        #expect(shader == "broken-test (fragment)")
        #expect(line == 8)
        #expect(sourceLine?.contains("colour * 2.0") == true)
        #expect(!log.isEmpty)
        #expect(error.description.contains("line 8"))
        #expect(images.count == 1, "the healthy branch still rendered")

        // And afterwards, the context still renders.
        try await input.process(randomBytes(4 * 4 * 4, seed: 3), width: 4, height: 4, format: .rgba,
                                timestamp: .zero, on: context)
        #expect(images.count == 2)
    }

    @Test("A program that does not link is an error with the log")
    func linkError() async throws {
        let context = try TestContexts.make()
        let fragment = """
            #version 300 es
            precision highp float;
            in vec3 notProvidedByTheVertexShader;
            out vec4 fragColor;
            void main() { fragColor = vec4(notProvidedByTheVertexShader, 1.0); }
            """
        await #expect {
            try await context.perform { context in _ = try context.program(named: "unlinkable", fragment: fragment) }
        } throws: { error in
            guard case .shaderLink(let program, _)? = error as? ELImageError else { return false }
            return program == "unlinkable"
        }
    }

    @Test("Programs are compiled once per context and cached")
    func caching() async throws {
        let context = try TestContexts.make()
        try await context.perform { context in
            let first = try context.program(named: "grayscale-cache", fragment: ShaderProgramTests.grayscale)
            let second = try context.program(named: "grayscale-cache", fragment: ShaderProgramTests.grayscale)
            #expect(first === second)
            #expect(first.uniformLocation("inputImageTexture") != nil)
            #expect(first.uniformLocation("noSuchUniform") == nil)
            #expect(throws: ELImageError.missingShaderSymbol(program: "grayscale-cache", symbol: "noSuchUniform")) {
                try first.requireUniform("noSuchUniform")
            }
        }
    }

    static let grayscale = """
        #version 300 es
        precision highp float;
        in vec2 textureCoordinate;
        uniform sampler2D inputImageTexture;
        out vec4 fragColor;
        void main() { fragColor = texture(inputImageTexture, textureCoordinate); }
        """

    @Test("Compile-log line numbers are found in each driver's format",
          arguments: [("0:12(5): error: syntax error", 12),          // Mesa
                      ("0(7) : error C0000: syntax error", 7),        // NVIDIA
                      ("ERROR: 0:3: 'x' : undeclared identifier", 3), // ANGLE / glslang
                      ("some driver message without a line", nil)] as [(String, Int?)])
    func logFormats(log: String, line: Int?) {
        #expect(ShaderLogLine.firstLine(in: log) == line)
    }
}
