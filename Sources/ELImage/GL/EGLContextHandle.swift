import CEGL
import Synchronization

/// One EGL context on a display, with the (optional) surface it is made current with.
final class EGLContextHandle: @unchecked Sendable {
    let display: EGLDisplayHandle
    let context: EGLContext
    private let surface: EGLSurface?

    /// Creates an OpenGL ES 3 context; `sharing` makes textures, buffers and syncs shared with it.
    init(display: EGLDisplayHandle, sharing: EGLContextHandle? = nil) throws {
        self.display = display
        let dpy = display.display
        guard eglBindAPI(EGLenum(EGL_OPENGL_ES_API)) == EGL_TRUE else {
            throw ELImageError.egl(call: "eglBindAPI(EGL_OPENGL_ES_API)", code: eglGetError(),
                                   hint: "this EGL driver has no OpenGL ES")
        }
        let configless = display.extensions.contains("EGL_KHR_no_config_context")
        let surfaceless = display.extensions.contains("EGL_KHR_surfaceless_context")
        var config: EGLConfig? = nil
        if !configless || !surfaceless {
            var attributes: [EGLint] = [
                EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT,
                EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_ALPHA_SIZE, 8,
            ]
            if !surfaceless { attributes += [EGL_SURFACE_TYPE, EGL_PBUFFER_BIT] }
            attributes.append(EGL_NONE)
            var count: EGLint = 0
            guard eglChooseConfig(dpy, attributes, &config, 1, &count) == EGL_TRUE, count > 0 else {
                throw ELImageError.egl(call: "eglChooseConfig(OpenGL ES 3, RGBA8)", code: eglGetError(),
                                       hint: "the driver offers no OpenGL ES 3 configuration")
            }
        }
        let contextAttributes: [EGLint] = [EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 0, EGL_NONE]
        guard let context = eglCreateContext(dpy, config, sharing?.context, contextAttributes) else {
            throw ELImageError.egl(call: "eglCreateContext(OpenGL ES 3.0)", code: eglGetError(),
                                   hint: "the driver does not provide OpenGL ES 3.0")
        }
        self.context = context
        if surfaceless {
            surface = nil
        } else {
            let pbufferAttributes: [EGLint] = [EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE]
            guard let pbuffer = eglCreatePbufferSurface(dpy, config, pbufferAttributes) else {
                let code = eglGetError()
                eglDestroyContext(dpy, context)
                throw ELImageError.egl(call: "eglCreatePbufferSurface(1x1)", code: code,
                                       hint: "the display has neither surfaceless contexts nor pbuffers")
            }
            surface = pbuffer
        }
    }

    /// Makes the context current on the calling thread.
    func makeCurrent() throws {
        guard eglMakeCurrent(display.display, surface, surface, context) == EGL_TRUE else {
            throw ELImageError.egl(call: "eglMakeCurrent", code: eglGetError(),
                                   hint: "a context can be current on one thread at a time")
        }
    }

    /// Unbinds whatever context is current on the calling thread.
    func releaseCurrent() {
        eglMakeCurrent(display.display, nil, nil, nil)
    }

    private let destroyed = Atomic<Bool>(false)

    /// Destroys the context and its surface. Idempotent; call once it is current nowhere.
    func destroy() {
        guard !destroyed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        eglDestroyContext(display.display, context)
        if let surface { eglDestroySurface(display.display, surface) }
    }

    deinit { destroy() }
}
