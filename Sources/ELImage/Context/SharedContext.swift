import CEGL
import CGLES

/// A second OpenGL ES context that shares textures, buffers and sync objects with a
/// `RenderContext`, for a worker thread (e.g. the encoder's readback thread).
///
/// Make it current once on the worker thread with `makeCurrent()`; use `GLFence` to wait until the
/// render thread's commands that produced a texture have completed before reading it. Release it
/// and `destroy()` it on that thread before the thread ends, and before the render context's
/// `close()` (`RenderContext.makeWorker` does all of this).
public final class SharedContext: Sendable {
    private let handle: EGLContextHandle

    init(handle: EGLContextHandle) {
        self.handle = handle
    }

    /// Binds this context to the calling thread. Call it on the worker thread, once.
    public func makeCurrent() throws { try handle.makeCurrent() }

    /// Unbinds it from the calling thread (call before the thread ends or hands it on).
    public func releaseCurrent() { handle.releaseCurrent() }

    /// Destroys the EGL context (after `releaseCurrent()`). Idempotent.
    public func destroy() { handle.destroy() }
}

/// A GL fence: signalled when every command issued before it on its context has completed.
/// Sync objects are shared between a `RenderContext` and its `SharedContext`s.
public final class GLFence: Sendable {
    private let handle: ThreadSafeHandle<GLsync>
    var sync: GLsync { handle.raw }
    private let resources: RenderResources

    init(sync: GLsync, resources: RenderResources) {
        handle = ThreadSafeHandle(sync)
        self.resources = resources
    }

    /// Blocks the calling thread, which must have the render context or one of its shared contexts
    /// current, until the fence signals or `timeoutNanoseconds` pass. Returns false on timeout.
    public func wait(timeoutNanoseconds: UInt64 = 1_000_000_000) -> Bool {
        let status = glClientWaitSync(sync, GLbitfield(GL_SYNC_FLUSH_COMMANDS_BIT), timeoutNanoseconds)
        return status == GL_ALREADY_SIGNALED || status == GL_CONDITION_SATISFIED
    }

    /// Whether the fence has signalled, without waiting; call where the render context or one of
    /// its shared contexts is current.
    public var isSignalled: Bool {
        let status = glClientWaitSync(sync, 0, 0)
        return status == GL_ALREADY_SIGNALED || status == GL_CONDITION_SATISFIED
    }

    /// Makes the calling thread's context wait for the fence on the GPU, without blocking the CPU.
    public func waitOnGPU() {
        glWaitSync(sync, 0, GLuint64(GL_TIMEOUT_IGNORED))
    }

    deinit {
        resources.deleteSync(handle)
    }
}
