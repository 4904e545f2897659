import ELImage

/// Why a preview window could not be shown.
public enum PreviewError: Error, Sendable, CustomStringConvertible {
    /// Neither `WAYLAND_DISPLAY` nor `DISPLAY` leads to a window system; `tried` says what each gave.
    case noWindowSystem(tried: [String])
    /// The window system refused a window or one of its objects.
    case windowSystem(what: String, hint: String)

    public var description: String {
        switch self {
        case let .noWindowSystem(tried):
            return "no window system to show the preview on (\(tried.joined(separator: "; "))). "
                + "Run inside a desktop session (DISPLAY for X11, WAYLAND_DISPLAY for Wayland), under a virtual "
                + "X server (xvfb-run -a COMMAND), or without a preview window (\(DocumentationPage.previewWindows.pointer))"
        case let .windowSystem(what, hint):
            return "\(what). \(hint)"
        }
    }
}
