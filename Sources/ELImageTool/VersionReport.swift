import ELImage

/// What `elimage --version` prints: the version on the first line, then the renderer a pipeline
/// would draw with (a render context is made, asked and closed), or why there is none.
enum VersionReport {
    /// The two lines, e.g. `elimage 1.0.0` and `renderer: llvmpipe (LLVM 15.0.6, 256 bits), OpenGL ES 3.2 Mesa 22.3.6`.
    static func text() async -> String {
        "elimage \(ELImageRelease.version)\n" + (await rendererLine())
    }

    /// The renderer and its OpenGL ES version; when no context can be made, the reason instead.
    static func rendererLine() async -> String {
        let context: RenderContext
        do {
            context = try RenderContext()
        } catch {
            return "renderer: none, no OpenGL ES 3 context could be made (\(userMessage(for: error)))"
        }
        let info = context.info
        await context.close()
        return "renderer: \(info.renderer), \(info.version)"
    }
}
