import Foundation
import PackagePlugin

/// Build-tool plugin: turns every GLSL file in the package's top-level `Shaders/` folder into a
/// Swift source file of string constants, so shaders ship inside the binary and nothing is looked
/// up on disk at run time.
@main
struct EmbedShaders: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let shaderFolder = context.package.directoryURL.appending(path: "Shaders")
        let names = try FileManager.default.contentsOfDirectory(atPath: shaderFolder.path())
            .filter { [".vsh", ".fsh", ".glsl"].contains(where: $0.hasSuffix) }
            .sorted()
        let inputs = names.map { shaderFolder.appending(path: $0) }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedShaders.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(names.count) shaders from Shaders/",
                executable: try context.tool(named: "ShaderEmbedder").url,
                arguments: [output.path()] + inputs.map { $0.path() },
                inputFiles: inputs,
                outputFiles: [output])
        ]
    }
}
