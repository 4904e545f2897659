import CEGL
import Synchronization

/// One EGL context on a display, with the (optional) surface it is made current with.
final class EGLContextHandle: Sendable {
    let display: EGLDisplayHandle
    private let handles: ThreadSafeHandle<(context: EGLContext, config: EGLConfig?, surface: EGLSurface?)>
    var context: EGLContext { handles.raw.context }
    /// The configuration the context was made with (nil: a configless context).
    var config: EGLConfig? { handles.raw.config }
    private var surface: EGLSurface? { handles.raw.surface }
    /// True when `surface` is a window surface (presented with `swapBuffers()`).
    let drawsToWindow: Bool

    /// Creates an OpenGL ES 3 context; `sharing` makes textures, buffers and syncs shared with it.
    /// On a window system's display the context has an RGBA8888 window configuration, and
    /// `window` (an X11 `Window*` or a `wl_egl_window*`) gives it a window surface to draw into.
    init(display: EGLDisplayHandle, sharing: EGLContextHandle? = nil, window: UnsafeMutableRawPointer? = nil) throws {
        self.display = display
        let dpy = display.display
        guard eglBindAPI(EGLenum(EGL_OPENGL_ES_API)) == EGL_TRUE else {
            throw ELImageError.egl(call: "eglBindAPI(EGL_OPENGL_ES_API)", code: eglGetError(),
                                   hint: "this EGL driver has no OpenGL ES")
        }
        let configless = display.extensions.contains("EGL_KHR_no_config_context")
        let surfaceless = display.extensions.contains("EGL_KHR_surfaceless_context")
        var config: EGLConfig? = nil
        if display.platform.isWindowSystem {
            config = try Self.windowConfig(display: dpy, pbuffer: !surfaceless)
        } else if !configless || !surfaceless {
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
        drawsToWindow = window != nil
        let surface: EGLSurface?
        if let window {
            guard let windowSurface = eglCreatePlatformWindowSurface(dpy, config, window, nil) else {
                let code = eglGetError()
                eglDestroyContext(dpy, context)
                throw ELImageError.egl(call: "eglCreatePlatformWindowSurface", code: code,
                                       hint: "the window does not match the context's RGBA8888 configuration")
            }
            surface = windowSurface
        } else if surfaceless {
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
        handles = ThreadSafeHandle((context, config, surface))
    }

    /// The first configuration with exactly 8 bits of red, green, blue and alpha that draws into
    /// windows with OpenGL ES 3. Not `eglChooseConfig`'s first: that one is the deepest (10-bit
    /// colour on Mesa), whose cleared areas read back as zero in 8-bit screenshots.
    private static func windowConfig(display: EGLDisplay, pbuffer: Bool) throws -> EGLConfig {
        let surfaceType = EGL_WINDOW_BIT | (pbuffer ? EGL_PBUFFER_BIT : 0)
        let attributes: [EGLint] = [
            EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT, EGL_SURFACE_TYPE, surfaceType,
            EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_ALPHA_SIZE, 8, EGL_NONE,
        ]
        var configs = [EGLConfig?](repeating: nil, count: 256)
        var count: EGLint = 0
        guard eglChooseConfig(display, attributes, &configs, EGLint(configs.count), &count) == EGL_TRUE else {
            throw ELImageError.egl(call: "eglChooseConfig(window, OpenGL ES 3, RGBA8)", code: eglGetError(),
                                   hint: "the window system's EGL offers no OpenGL ES 3 window configuration")
        }
        func size(_ config: EGLConfig, _ attribute: EGLint) -> EGLint {
            var value: EGLint = 0
            eglGetConfigAttrib(display, config, attribute, &value)
            return value
        }
        let exact = configs.prefix(Int(count)).compactMap { $0 }.first { config in
            [EGL_RED_SIZE, EGL_GREEN_SIZE, EGL_BLUE_SIZE, EGL_ALPHA_SIZE].allSatisfy { size(config, $0) == 8 }
        }
        guard let exact else {
            throw ELImageError.egl(call: "eglChooseConfig(window, RGBA8888)", code: EGL_BAD_CONFIG,
                                   hint: "none of the \(count) window configurations has exactly 8 bits per channel")
        }
        return exact
    }

    /// The native visual of the context's configuration (`EGL_NATIVE_VISUAL_ID`: an X11 visual ID).
    var nativeVisualID: EGLint {
        guard let config else { return 0 }
        var value: EGLint = 0
        eglGetConfigAttrib(display.display, config, EGL_NATIVE_VISUAL_ID, &value)
        return value
    }

    /// Shows what was drawn into the window surface (call with the context current).
    func swapBuffers() throws {
        guard let surface, eglSwapBuffers(display.display, surface) == EGL_TRUE else {
            throw ELImageError.egl(call: "eglSwapBuffers", code: eglGetError(),
                                   hint: "the window was closed or its surface lost")
        }
    }

    /// The window surface's current size in pixels.
    var surfaceSize: (width: Int, height: Int) {
        guard let surface else { return (0, 0) }
        var width: EGLint = 0, height: EGLint = 0
        eglQuerySurface(display.display, surface, EGL_WIDTH, &width)
        eglQuerySurface(display.display, surface, EGL_HEIGHT, &height)
        return (Int(width), Int(height))
    }

    /// Sets the swap interval of the current surface (0: never wait for vertical blank).
    func setSwapInterval(_ interval: Int) {
        eglSwapInterval(display.display, EGLint(interval))
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
