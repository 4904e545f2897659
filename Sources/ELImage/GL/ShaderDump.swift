import Foundation

/// Debugging aid: with the environment variable `ELIMAGE_DUMP_SHADERS` set to a folder, every
/// program a render context compiles has its fragment shader written there as `<program>.fsh`
/// (the name made file-safe), so the generated and fused shaders a pipeline really runs can be
/// read, e.g. `ELIMAGE_DUMP_SHADERS=/tmp/shaders elimage run clip.y4m --filter grayscale -o out.y4m`.
enum ShaderDump {
    /// The folder named by `ELIMAGE_DUMP_SHADERS`, if set and not empty: each context's default
    /// (`RenderContext.shaderDumpFolder`).
    static let folder: String? = {
        guard let value = ProcessInfo.processInfo.environment["ELIMAGE_DUMP_SHADERS"], !value.isEmpty else { return nil }
        return value
    }()

    /// Writes `fragment` as program `name`'s shader into `folder`, if any.
    static func write(program name: String, fragment: String, into folder: String?) throws {
        guard let folder else { return }
        let safe = String(name.map { $0.isLetter || $0.isNumber || "_-.[]=,#".contains($0) ? $0 : "_" })
        let path = (folder as NSString).appendingPathComponent(safe + ".fsh")
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try fragment.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw ELImageError.io(file: path, operation: "write the shader dump (ELIMAGE_DUMP_SHADERS)", errno: EIO,
                                  hint: "set ELIMAGE_DUMP_SHADERS to a writable folder, or unset it (\(error))")
        }
    }
}
