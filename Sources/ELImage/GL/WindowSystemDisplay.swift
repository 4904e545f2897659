/// A connection to a window system (an X11 `Display*` or a Wayland `wl_display*`) that a
/// `RenderContext` can open its EGL display on, so that its textures can be drawn into windows
/// of that connection. ELImagePreview's `PreviewDisplay` is one.
///
/// The render context keeps the connection alive until its EGL display is terminated.
public protocol WindowSystemDisplay: AnyObject, Sendable {
    /// `.x11` or `.wayland`.
    var platform: EGLPlatform { get }
    /// The native display pointer EGL takes (`Display*` or `wl_display*`).
    var nativeDisplay: UnsafeMutableRawPointer { get }
    /// A name for messages, e.g. "X11 display :1".
    var name: String { get }
}
