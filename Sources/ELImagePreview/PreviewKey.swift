/// A key pressed in a preview window.
public enum PreviewKey: Sendable, Equatable {
    /// A printable key, as its unshifted character on a US layout ("q", "f", " ").
    case character(Character)
    case escape
}

/// What a native window reports to the presentation thread.
enum WindowEvent: Sendable, Equatable {
    case key(PreviewKey)
    /// The close button (X11 `WM_DELETE_WINDOW`, xdg_toplevel `close`).
    case closeRequested
    /// The user or the window manager gave the window a new size (pixels).
    case resized(width: Int, height: Int)
    /// Part of the window must be drawn again.
    case exposed
}

/// A window of a `PreviewDisplay`, used by one presentation thread after it was made.
protocol NativeWindow: AnyObject {
    /// What `eglCreatePlatformWindowSurface` takes: a pointer to the X11 `Window`, or the `wl_egl_window*`.
    var eglWindow: UnsafeMutableRawPointer { get }
    /// True once the window system went away: nothing may be drawn any more (Mesa's X11 swap
    /// spins forever on a dead connection).
    var isLost: Bool { get }
    /// The events that arrived since the last call; never blocks.
    func pendingEvents() -> [WindowEvent]
    func setTitle(_ title: String)
    func setFullscreen(_ fullscreen: Bool)
    /// Asks for a new size in pixels (the window follows the frames' size until the user resizes it).
    func resize(width: Int, height: Int)
    /// Destroys the window (after its EGL surface was destroyed).
    func destroy()
}
