/// Runs `body` with a new render context and closes the context when `body` returns or throws,
/// so the end of the pipeline cannot be forgotten:
///
/// ```swift
/// try await withRenderContext { context in
///     let movie = try MovieInput(path: "in.mp4")
///     movie --> Grayscale() --> encoder
///     try await movie.run(on: context)
/// }   // sources stopped, sinks drained, threads joined, EGL torn down
/// ```
public func withRenderContext<Result: Sendable>(
    platform: EGLPlatform? = nil, readback: ReadbackPlacement = .automatic, _ body: (RenderContext) async throws -> Result
) async throws -> Result {
    let context = try RenderContext(platform: platform, readback: readback)
    do {
        let result = try await body(context)
        await context.close()
        return result
    } catch {
        await context.close()
        throw error
    }
}
