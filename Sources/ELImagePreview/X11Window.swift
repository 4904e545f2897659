import CX11

/// A top-level X11 window with the visual of the EGL configuration, a title, the close button
/// (`WM_DELETE_WINDOW`) and key and size events.
final class X11Window: NativeWindow {
    private let display: OpaquePointer
    private let window: UnsafeMutablePointer<Window>
    private let colormap: Colormap
    private let deleteWindow: Atom
    private var destroyed = false
    private let isConnectionLost: () -> Bool
    private var lossReported = false

    var eglWindow: UnsafeMutableRawPointer { UnsafeMutableRawPointer(window) }

    /// `isConnectionLost` says when the X server went away (then the window only asks to close).
    init(display: OpaquePointer, visualID: Int32, title: String, width: Int, height: Int,
         isConnectionLost: @escaping () -> Bool) throws {
        self.display = display
        self.isConnectionLost = isConnectionLost
        var template = XVisualInfo()
        template.visualid = VisualID(visualID)
        var count: Int32 = 0
        guard let infos = XGetVisualInfo(display, Int(VisualIDMask), &template, &count), count > 0 else {
            throw PreviewError.windowSystem(what: "the X server has no visual 0x\(String(visualID, radix: 16)) for the EGL configuration",
                                            hint: "start the X server with a 24-bit screen (Xvfb :1 -screen 0 1280x720x24)")
        }
        defer { XFree(infos) }
        let info = infos.pointee
        let root = XRootWindow(display, info.screen)
        colormap = XCreateColormap(display, root, info.visual, AllocNone)
        var attributes = XSetWindowAttributes()
        attributes.colormap = colormap
        attributes.background_pixel = 0
        attributes.border_pixel = 0
        attributes.event_mask = KeyPressMask | StructureNotifyMask | ExposureMask
        let made = XCreateWindow(display, root, 0, 0, UInt32(max(1, width)), UInt32(max(1, height)), 0, info.depth,
                                 UInt32(InputOutput), info.visual,
                                 UInt(CWColormap | CWBackPixel | CWBorderPixel | CWEventMask), &attributes)
        guard made != 0 else {
            XFreeColormap(display, colormap)
            throw PreviewError.windowSystem(what: "XCreateWindow failed", hint: "check the X server (DISPLAY)")
        }
        window = .allocate(capacity: 1)
        window.initialize(to: made)
        deleteWindow = XInternAtom(display, "WM_DELETE_WINDOW", 0)
        var protocols = [deleteWindow]
        XSetWMProtocols(display, made, &protocols, 1)
        setTitle(title)
        XMapWindow(display, made)
        XFlush(display)
    }

    var isLost: Bool { isConnectionLost() }

    func pendingEvents() -> [WindowEvent] {
        if isConnectionLost() {
            defer { lossReported = true }
            return lossReported ? [] : [.closeRequested]
        }
        var events: [WindowEvent] = []
        while XPending(display) > 0 {
            var event = XEvent()
            XNextEvent(display, &event)
            switch event.type {
            case KeyPress:
                let symbol = XLookupKeysym(&event.xkey, 0)
                if symbol == XK_Escape {
                    events.append(.key(.escape))
                } else if (0x20...0x7e).contains(symbol), let scalar = Unicode.Scalar(UInt32(symbol)) {
                    events.append(.key(.character(Character(scalar))))
                }
            case ConfigureNotify:
                events.append(.resized(width: Int(event.xconfigure.width), height: Int(event.xconfigure.height)))
            case Expose:
                events.append(.exposed)
            case ClientMessage where Atom(event.xclient.data.l.0) == deleteWindow:
                events.append(.closeRequested)
            default:
                break
            }
        }
        return events
    }

    func setTitle(_ title: String) {
        guard !isConnectionLost() else { return }  // Xlib must not be called on a dead connection
        XStoreName(display, window.pointee, title)
        let utf8 = XInternAtom(display, "UTF8_STRING", 0)
        let name = XInternAtom(display, "_NET_WM_NAME", 0)
        let bytes = Array(title.utf8)
        XChangeProperty(display, window.pointee, name, utf8, 8, PropModeReplace, bytes, Int32(bytes.count))
        XFlush(display)
    }

    /// Asks the window manager (EWMH `_NET_WM_STATE_FULLSCREEN`); without one nothing changes.
    func setFullscreen(_ fullscreen: Bool) {
        guard !isConnectionLost() else { return }
        var event = XEvent()
        event.xclient.type = ClientMessage
        event.xclient.window = window.pointee
        event.xclient.message_type = XInternAtom(display, "_NET_WM_STATE", 0)
        event.xclient.format = 32
        event.xclient.data.l.0 = fullscreen ? 1 : 0
        event.xclient.data.l.1 = Int(XInternAtom(display, "_NET_WM_STATE_FULLSCREEN", 0))
        event.xclient.data.l.3 = 1
        XSendEvent(display, XDefaultRootWindow(display), 0, SubstructureRedirectMask | SubstructureNotifyMask, &event)
        XFlush(display)
    }

    func resize(width: Int, height: Int) {
        guard !isConnectionLost() else { return }
        XResizeWindow(display, window.pointee, UInt32(max(1, width)), UInt32(max(1, height)))
        XFlush(display)
    }

    func destroy() {
        guard !destroyed else { return }
        destroyed = true
        if !isConnectionLost() {
            XDestroyWindow(display, window.pointee)
            XFreeColormap(display, colormap)
            XFlush(display)
        }
        window.deallocate()
    }

    deinit { destroy() }
}
