import ELImageTestSupport
import Foundation
import Testing

@Suite("Shader files", .closesContexts)
struct ShaderFileTests {
    static let shaderFolder = Repository.path("Shaders")

    static var shaderFiles: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: shaderFolder)) ?? [])
            .filter { $0.hasSuffix(".vsh") || $0.hasSuffix(".fsh") }.sorted()
    }

    @Test("There are shaders to check")
    func nonEmpty() {
        #expect(Self.shaderFiles.count >= 5)
    }

    @Test("Every shader in Shaders/ passes glslangValidator as GLSL ES", arguments: shaderFiles)
    func validate(file: String) throws {
        let stage = file.hasSuffix(".vsh") ? "vert" : "frag"
        do {
            try runTool("glslangValidator", ["-S", stage, "\(Self.shaderFolder)/\(file)"])
        } catch let failure as ToolFailure {
            Issue.record("\(file): \(failure)")
        }
    }
}
