import CGLES

/// The GL objects a `RenderContext` owns (pooled textures, compiled programs) and the way back to
/// its render thread. Frames and fences keep this, not the context: releasing one never keeps a
/// context alive or runs its teardown on a foreign thread.
///
/// Touched on the render thread only; from elsewhere, work is handed to the thread. Once the
/// context is closed, that work is dropped: its GL objects went with the EGL context.
final class RenderResources: @unchecked Sendable {
    // @unchecked Sendable: the pool and the programs are used on the render thread alone.
    let framePool: FramePool
    var programs: [String: ShaderProgram] = [:]
    private let thread: RenderThread

    init(framePool: FramePool, thread: RenderThread) {
        self.framePool = framePool
        self.thread = thread
    }

    /// Returns a released frame's texture to the pool.
    func recycle(_ texture: PooledTexture) {
        onRenderThread { $0.framePool.recycle(texture) }
    }

    /// Deletes a fence's sync object.
    func deleteSync(_ sync: ThreadSafeHandle<GLsync>) {
        onRenderThread { _ in glDeleteSync(sync.raw) }
    }

    /// Deletes every pooled texture and program (the context is closing).
    func deleteAll() {
        framePool.deleteAll()
        programs.values.forEach { $0.delete() }
        programs = [:]
    }

    private func onRenderThread(_ body: @escaping @Sendable (RenderResources) -> Void) {
        if thread.isCurrent {
            body(self)
        } else {
            thread.submit { [self] in body(self) }
        }
    }
}
