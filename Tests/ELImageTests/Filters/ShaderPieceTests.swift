import ELImage
import ELImageTestSupport
import Foundation
import Testing

/// The colour pieces in Shaders/*.glsl are not complete shaders, so ShaderFileTests skips them:
/// here each is wrapped in a main, as ColorChain does, and checked by glslangValidator; so is a
/// chain of all of them.
@Suite("Shader pieces", .closesContexts)
struct ShaderPieceTests {
    static let folder = Repository.path("Shaders")

    static var pieces: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0.hasPrefix("color_") && $0.hasSuffix(".glsl") }.sorted()
    }

    static func wrapped(_ sources: [String]) -> String {
        var text = "#version 300 es\nprecision highp float;\nin vec2 textureCoordinate;\nuniform sampler2D inputImageTexture;\nout vec4 fragColor;\n"
        for (index, source) in sources.enumerated() {
            text += source.replacingOccurrences(of: "PIECE_", with: "piece_\(index)_") + "\n"
        }
        text += "void main() {\n    vec4 color = texture(inputImageTexture, textureCoordinate);\n"
        for index in sources.indices { text += "    color = clamp(piece_\(index)_apply(color), 0.0, 1.0);\n" }
        return text + "    fragColor = color;\n}\n"
    }

    static func validate(_ source: String, name: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("\(name).frag")
        try source.write(toFile: path, atomically: true, encoding: .utf8)
        do {
            try runTool("glslangValidator", ["-S", "frag", path])
        } catch let failure as ToolFailure {
            Issue.record("\(name): \(failure)")
        }
    }

    @Test("There are colour pieces")
    func nonEmpty() {
        #expect(Self.pieces.count >= 11)
    }

    @Test("Every colour piece, wrapped in a main, passes glslangValidator", arguments: pieces)
    func piece(_ file: String) throws {
        let source = try String(contentsOfFile: "\(Self.folder)/\(file)", encoding: .utf8)
        #expect(source.contains("PIECE_apply"))
        try Self.validate(Self.wrapped([source]), name: file)
    }

    @Test("All pieces fused into one shader (twice each) pass glslangValidator")
    func allTogether() throws {
        let sources = try Self.pieces.map { try String(contentsOfFile: "\(Self.folder)/\($0)", encoding: .utf8) }
        try Self.validate(Self.wrapped(sources + sources), name: "all_pieces")
    }

    @Test("The shader ColorChain generates passes glslangValidator")
    func generated() throws {
        let chain = ColorChain([Brightness(), Contrast(), Saturation(), Exposure(), Gamma(), Hue(), WhiteBalance(), Levels(),
                                try ColorMatrixFilter(), try LookupTable(table: LookupTable.identityImage()), Grayscale(), Brightness()])
        try Self.validate(chain.fragmentShader, name: "generated_chain")
    }
}
