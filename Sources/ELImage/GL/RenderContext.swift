import CEGL
import CGLES
import Foundation
import Synchronization

/// A headless OpenGL ES 3 context with its own render thread: the place where a graph runs.
///
/// `RenderContext` is an actor whose executor is its render thread, and the EGL context is current
/// on that thread alone. Everything that touches GL in ELImage takes an `isolated RenderContext`,
/// so the compiler only lets it run on the right thread:
///
/// ```swift
/// let context = try RenderContext()
/// try await context.perform { context in          // runs on the render thread
///     try source.process(pixels, width: 640, height: 480, format: .rgba, timestamp: .zero, in: context)
/// }
/// ```
///
/// Contexts are independent: two in one process have their own threads, textures and programs.
public actor RenderContext {
    private nonisolated let thread: RenderThread
    private nonisolated let egl: EGLContextHandle

    /// What the driver reported when the context was made.
    public nonisolated let info: RenderContextInfo

    /// GL objects owned by the context. Only touched on the render thread (isolated members and
    /// the cleanup the deinit hands to the thread); `@unchecked Sendable` only so that the deinit
    /// can hand them over.
    private final class Resources: @unchecked Sendable {
        let framePool: FramePool
        var programs: [String: ShaderProgram] = [:]
        init(framePool: FramePool) { self.framePool = framePool }
    }
    private let resources: Resources

    /// Textures and framebuffers for frames, reused across frames.
    public var framePool: FramePool { resources.framePool }

    /// The frame pool's counters (`await context.poolStatistics` from outside the render thread).
    public var poolStatistics: FramePool.Statistics { framePool.statistics }

    private var emptyVertexArray: GLuint = 0
    private let errorHandler = Mutex<(@Sendable (NodeFailure) -> Void)?>(nil)

    /// Draw calls issued by ELImage's nodes on this context since it was made.
    public private(set) var drawCallCount = 0

    public nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }

    /// Opens an EGL display and creates the context on a new render thread.
    ///
    /// - Parameter platform: the EGL platform to use; `nil` honours `ELIMAGE_EGL_PLATFORM` and
    ///   otherwise tries GBM, then GPU devices, then Mesa surfaceless.
    public init(platform: EGLPlatform? = nil) throws {
        let candidates = try EGLPlatform.candidates(requested: platform)
        let thread = RenderThread(name: "ELImage.render")
        let (egl, info) = try thread.sync {
            let display = try EGLDisplayHandle.open(candidates: candidates)
            let egl = try EGLContextHandle(display: display)
            try egl.makeCurrent()
            let info = RenderContextInfo.queryCurrent(platform: display.platform, device: display.source)
            return (egl, info)
        }
        self.thread = thread
        self.egl = egl
        self.info = info
        self.resources = Resources(framePool: FramePool(maximumTextureSize: info.maximumTextureSize))
    }

    deinit {
        // Frames and shared contexts keep the context alive, so nothing uses its textures any more.
        // GL objects must be deleted where the context is current, on the render thread, which then
        // exits. Off that thread, wait for it, so no GL work outlives the context (or the process).
        let (resources, egl, thread) = (self.resources, self.egl, self.thread)
        let cleanUp: @Sendable () -> Void = {
            resources.framePool.deleteAll()
            resources.programs.values.forEach { $0.delete() }
            egl.releaseCurrent()
        }
        if thread.isCurrent {
            thread.submit(cleanUp)
        } else {
            try? thread.sync(cleanUp)
        }
        thread.stop()
    }

    // MARK: Running work on the render thread

    /// Runs `body` on the render thread with the context isolated, and returns its result.
    public func perform<T: Sendable>(_ body: @Sendable (isolated RenderContext) throws -> T) rethrows -> T {
        try body(self)
    }

    /// Runs `body` on the render thread and blocks the calling thread until it returns; for code
    /// outside Swift concurrency (a capture thread, a simple command-line program). Runs inline when
    /// called on the render thread.
    public nonisolated func performAndWait<T: Sendable>(_ body: (isolated RenderContext) throws -> T) throws -> T {
        nonisolated(unsafe) let body = body  // runs while this thread waits: never concurrently
        return try thread.sync {
            try self.assumeIsolated { context in try body(context) }
        }
    }

    /// Runs `body` on the render thread later, without waiting (e.g. from a deinit).
    nonisolated func enqueue(_ body: @escaping @Sendable (isolated RenderContext) -> Void) {
        if thread.isCurrent {
            assumeIsolated { body($0) }
        } else {
            thread.submit { [self] in self.assumeIsolated { body($0) } }
        }
    }

    // MARK: Errors from nodes

    /// Sets the closure that hears about failing nodes. It is called on the render thread.
    /// Without one, failures are written to standard error. A failing node never stops the others.
    public nonisolated func setErrorHandler(_ handler: (@Sendable (NodeFailure) -> Void)?) {
        errorHandler.withLock { $0 = handler }
    }

    /// Reports a node's failure to the error handler.
    public func report(_ error: Error, from node: AnyObject) {
        let failure = NodeFailure(node: NodeFailure.name(of: node), error: error)
        if let handler = errorHandler.withLock({ $0 }) {
            handler(failure)
        } else {
            FileHandle.standardError.write(Data("ELImage: \(failure)\n".utf8))
        }
    }

    // MARK: Shared contexts and fences

    /// Creates a context that shares objects with this one, for use on another thread.
    public nonisolated func makeSharedContext() throws -> SharedContext {
        let handle = try thread.sync { try EGLContextHandle(display: egl.display, sharing: egl) }
        return SharedContext(handle: handle, parent: self)
    }

    /// Inserts a fence after the commands issued so far, and flushes them.
    public func insertFence() throws -> GLFence {
        guard let sync = glFenceSync(GLenum(GL_SYNC_GPU_COMMANDS_COMPLETE), 0) else {
            throw ELImageError.gl(call: "glFenceSync", code: glGetError())
        }
        glFlush()
        return GLFence(sync: sync, context: self)
    }

    // MARK: Programs and drawing (used by nodes)

    /// The program called `name`, compiled and linked on first use, then cached for this context.
    /// `vertex` defaults to the full-frame triangle that sets `textureCoordinate`.
    public func program(named name: String, vertex: String? = nil, fragment: String) throws -> ShaderProgram {
        if let program = resources.programs[name] { return program }
        let program = try ShaderProgram(name: name, vertexSource: vertex ?? EmbeddedShaders.fullscreenVsh,
                                        fragmentSource: fragment)
        resources.programs[name] = program
        return program
    }

    /// Removes the cached program `name` and deletes it.
    public func discardProgram(named name: String) {
        resources.programs.removeValue(forKey: name)?.delete()
    }

    /// Draws one full-frame triangle into `target` with `program`, sampling `inputs` on texture units
    /// 0, 1, ... as the program's `inputImageTexture`, `inputImageTexture2`, ... samplers.
    /// `setUniforms` runs with the program in use.
    public func draw(
        _ program: ShaderProgram, into target: TextureFrame, inputs: [TextureFrame],
        setUniforms: (ShaderProgram) throws -> Void = { _ in }
    ) throws {
        if emptyVertexArray == 0 {
            glGenVertexArrays(1, &emptyVertexArray)
            glDisable(GLenum(GL_DITHER))  // on by default; it would perturb exact 8-bit results
        }
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), target.framebuffer)
        glViewport(0, 0, GLsizei(target.width), GLsizei(target.height))
        program.use()
        for (unit, input) in inputs.enumerated() {
            glActiveTexture(GLenum(GL_TEXTURE0 + Int32(unit)))
            glBindTexture(GLenum(GL_TEXTURE_2D), input.texture)
            program.setSampler(ShaderProgram.samplerName(forInput: unit), unit: unit)
        }
        try setUniforms(program)
        glBindVertexArray(emptyVertexArray)
        glDrawArrays(GLenum(GL_TRIANGLES), 0, 3)
        drawCallCount += 1
        let error = glGetError()
        if error != GL_NO_ERROR { throw ELImageError.gl(call: "glDrawArrays(\(program.name))", code: error) }
    }
}

/// A node's failure, as reported to the context's error handler.
public struct NodeFailure: Error, Sendable, CustomStringConvertible {
    /// The failing node's type name and identity, e.g. "Grayscale#3f2a".
    public let node: String
    public let error: Error

    static func name(of node: AnyObject) -> String {
        let id = UInt(bitPattern: ObjectIdentifier(node).hashValue) & 0xFFFF
        return "\(type(of: node))#\(String(id, radix: 16))"
    }

    public var description: String { "\(node) failed: \(error)" }
}
