import CEGL
import CGLES

/// A second OpenGL ES context that shares textures, buffers and sync objects with a
/// `RenderContext`, for a worker thread (e.g. the encoder's readback thread).
///
/// Make it current once on the worker thread with `makeCurrent()`; use `GLFence` to wait until the
/// render thread's commands that produced a texture have completed before reading it.
public final class SharedContext: @unchecked Sendable {
    private let handle: EGLContextHandle
    /// Keeps the render context (and so the shared objects) alive while this context exists.
    public let parent: RenderContext

    init(handle: EGLContextHandle, parent: RenderContext) {
        self.handle = handle
        self.parent = parent
    }

    /// Binds this context to the calling thread. Call it on the worker thread, once.
    public func makeCurrent() throws { try handle.makeCurrent() }

    /// Unbinds it from the calling thread (call before the thread ends or hands it on).
    public func releaseCurrent() { handle.releaseCurrent() }
}

/// A GL fence: signalled when every command issued before it on its context has completed.
/// Sync objects are shared between a `RenderContext` and its `SharedContext`s.
public final class GLFence: @unchecked Sendable {
    let sync: GLsync
    private let context: RenderContext

    init(sync: GLsync, context: RenderContext) {
        self.sync = sync
        self.context = context
    }

    /// Blocks the calling thread, which must have the render context or one of its shared contexts
    /// current, until the fence signals or `timeoutNanoseconds` pass. Returns false on timeout.
    public func wait(timeoutNanoseconds: UInt64 = 1_000_000_000) -> Bool {
        let status = glClientWaitSync(sync, GLbitfield(GL_SYNC_FLUSH_COMMANDS_BIT), timeoutNanoseconds)
        return status == GL_ALREADY_SIGNALED || status == GL_CONDITION_SATISFIED
    }

    /// Makes the calling thread's context wait for the fence on the GPU, without blocking the CPU.
    public func waitOnGPU() {
        glWaitSync(sync, 0, GLuint64(GL_TIMEOUT_IGNORED))
    }

    deinit {
        let sync = UncheckedBox(self.sync)
        context.enqueue { _ in glDeleteSync(sync.value) }
    }
}
