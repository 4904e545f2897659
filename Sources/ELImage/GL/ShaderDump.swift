import Foundation

/// Debugging aid: with the environment variable `ELIMAGE_DUMP_SHADERS` set to a folder, every
/// program a render context compiles has its fragment shader written there as `<program>.fsh`
/// (the name made file-safe), so the generated and fused shaders a pipeline really runs can be
/// read, e.g. `ELIMAGE_DUMP_SHADERS=/tmp/shaders elimage run clip.y4m --filter grayscale -o out.y4m`.
package enum ShaderDump {
    /// The folder named by `ELIMAGE_DUMP_SHADERS`, if set and not empty.
    static let environmentFolder: String? = {
        guard let value = ProcessInfo.processInfo.environment["ELIMAGE_DUMP_SHADERS"], !value.isEmpty else { return nil }
        return value
    }()

    /// A folder that replaces `ELIMAGE_DUMP_SHADERS` while set (for tests in one process).
    package static let folderOverride = Locked<String?>(nil)

    /// Where shaders are written now, if anywhere.
    static var folder: String? { folderOverride.withLock { $0 } ?? environmentFolder }

    /// Writes `fragment` as program `name`'s shader when dumping is on.
    static func write(program name: String, fragment: String) throws {
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
