import CEGL
import CGLES

/// A context that shares textures with a `RenderContext` and draws into a window: the
/// presentation side of a preview window. Frames of the graph are drawn from their textures, with
/// no readback.
///
/// Made by `RenderContext.makeWindowContext(window:)`; then used on one presentation thread only:
/// `makeCurrent()` once, `present` per frame, `destroy()` before the thread ends and before the
/// render context closes.
package final class WindowContext: @unchecked Sendable {
    // @unchecked Sendable: handed to the presentation thread, which alone uses it after that.
    private let handle: EGLContextHandle
    private var program: ShaderProgram?
    private var vertexArray: GLuint = 0

    init(handle: EGLContextHandle) {
        self.handle = handle
    }

    /// Binds the context and its window surface to the calling thread and sets the swap interval
    /// (0: a swap never waits for the display; Xvfb has no vertical blank anyway).
    package func makeCurrent(swapInterval: Int) throws {
        try handle.makeCurrent()
        handle.setSwapInterval(swapInterval)
    }

    /// The window surface's size in pixels, as EGL sees it now.
    package var drawableSize: (width: Int, height: Int) { handle.surfaceSize }

    /// Clears the window to black, draws `frame` into `viewport` (x, y from the bottom left, in
    /// pixels), and shows it. `fence` (inserted after the frame was rendered) is waited for on the GPU.
    package func present(_ frame: TextureFrame?, fence: GLFence?,
                         viewport: (x: Int, y: Int, width: Int, height: Int)) throws {
        let size = drawableSize
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
        glViewport(0, 0, GLsizei(size.width), GLsizei(size.height))
        glClearColor(0, 0, 0, 1)
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
        if let frame, viewport.width > 0, viewport.height > 0 {
            fence?.waitOnGPU()
            let program = try preparedProgram()
            glViewport(GLint(viewport.x), GLint(viewport.y), GLsizei(viewport.width), GLsizei(viewport.height))
            program.use()
            glActiveTexture(GLenum(GL_TEXTURE0))
            glBindTexture(GLenum(GL_TEXTURE_2D), frame.texture)
            program.setSampler(ShaderProgram.samplerName(forInput: 0), unit: 0)
            glBindVertexArray(vertexArray)
            glDrawArrays(GLenum(GL_TRIANGLES), 0, 3)
            glBindVertexArray(0)
            let error = glGetError()
            if error != GL_NO_ERROR { throw ELImageError.gl(call: "glDrawArrays(window present)", code: error) }
        }
        try handle.swapBuffers()
    }

    private func preparedProgram() throws -> ShaderProgram {
        if let program { return program }
        let made = try ShaderProgram(name: "window present", vertexSource: EmbeddedShaders.windowPresentVsh,
                                     fragmentSource: EmbeddedShaders.passthroughFsh)
        glGenVertexArrays(1, &vertexArray)
        glDisable(GLenum(GL_DITHER))
        program = made
        return made
    }

    /// Deletes the GL objects, unbinds and destroys the context and its window surface. Call on
    /// the presentation thread, before the window itself is destroyed.
    package func destroy() {
        program?.delete()
        program = nil
        if vertexArray != 0 { glDeleteVertexArrays(1, &vertexArray) }
        vertexArray = 0
        handle.releaseCurrent()
        handle.destroy()
        eglReleaseThread()
    }
}
