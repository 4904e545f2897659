import CGLES

extension RenderContext {
    /// `frame` scaled to `width` x `height` with bilinear filtering, placed by `scaling` (black
    /// where `.fit` leaves bars): one framebuffer blit into a frame from the pool. Returns `frame`
    /// itself when it already has that size.
    public func scaledFrame(_ frame: TextureFrame, width: Int, height: Int, scaling: FrameScaling) throws -> TextureFrame {
        if frame.width == width, frame.height == height { return frame }
        guard width > 0, height > 0 else {
            throw ELImageError.invalidInput(what: "cannot scale a frame to \(width)x\(height)",
                                            hint: "give a size of at least 1x1")
        }
        let target = try makeFrame(width: width, height: height, like: frame)
        let area = scaling.viewport(frame: (frame.width, frame.height), window: (width, height))
        glBindFramebuffer(GLenum(GL_READ_FRAMEBUFFER), frame.framebuffer)
        glBindFramebuffer(GLenum(GL_DRAW_FRAMEBUFFER), target.framebuffer)
        if area.x > 0 || area.y > 0 || area.width < width || area.height < height {
            glClearColor(0, 0, 0, 1)
            glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
        }
        glBlitFramebuffer(0, 0, GLint(frame.width), GLint(frame.height),
                          GLint(area.x), GLint(area.y), GLint(area.x + area.width), GLint(area.y + area.height),
                          GLbitfield(GL_COLOR_BUFFER_BIT), GLenum(GL_LINEAR))
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
        let error = glGetError()
        if error != GL_NO_ERROR {
            throw ELImageError.gl(call: "glBlitFramebuffer(\(frame.width)x\(frame.height) → \(width)x\(height), \(scaling))", code: error)
        }
        return target
    }
}
