import CX11
import ELImage
import Foundation
import Synchronization

/// A connection to the desktop's window system, X11 or Wayland, for preview windows. A
/// `RenderContext(windowSystem:)` made on it draws the graph's textures straight into its windows.
///
/// ```swift
/// let display = try PreviewDisplay.connect()          // WAYLAND_DISPLAY, else DISPLAY
/// let context = try RenderContext(windowSystem: display)
/// let window = try PreviewWindow(context: context, display: display)
/// source --> window
/// ```
///
/// The connection is closed when the display and every context made on it are released.
public final class PreviewDisplay: WindowSystemDisplay, Sendable {

    /// Which window system to use.
    public enum System: String, Sendable, CaseIterable {
        case x11
        case wayland
    }

    /// The environment variable that forces a window system (`x11` or `wayland`).
    public static let environmentVariable = "ELIMAGE_WINDOW_SYSTEM"

    public let system: System
    public var platform: EGLPlatform { system == .x11 ? .x11 : .wayland }
    /// The connection used thread-safely (`XInitThreads`; Wayland's event queues).
    private let native: ThreadSafeHandle<UnsafeMutableRawPointer>
    public var nativeDisplay: UnsafeMutableRawPointer { native.raw }
    public let name: String
    let connection: Connection
    /// Set when the X server went away (Wayland reports it through `wl_display_get_error`).
    let lost = Atomic<Bool>(false)

    enum Connection: Sendable {
        case x11(ThreadSafeHandle<OpaquePointer>)
        case wayland(WaylandConnection)
    }

    private init(system: System, nativeDisplay: UnsafeMutableRawPointer, name: String, connection: Connection) {
        self.system = system
        native = ThreadSafeHandle(nativeDisplay)
        self.name = name
        self.connection = connection
    }

    deinit {
        switch connection {
        case let .x11(handle):
            // After a lost server Xlib must not be called again: the connection is left as it is.
            if !lost.load(ordering: .acquiring) { XCloseDisplay(handle.raw) }
        case let .wayland(connection): connection.disconnect()
        }
    }

    /// Connects to `system`, or else to the one `ELIMAGE_WINDOW_SYSTEM` names, or else to Wayland
    /// when `WAYLAND_DISPLAY` is set and to X11 when `DISPLAY` is (Wayland first, X11 if that fails).
    /// - Throws: `PreviewError.noWindowSystem` naming `DISPLAY` and `WAYLAND_DISPLAY` when neither works.
    /// `displayName` names the server instead of `DISPLAY` / `WAYLAND_DISPLAY` (":1", "wayland-1").
    public static func connect(_ system: System? = nil, displayName: String? = nil) throws -> PreviewDisplay {
        let environment = ProcessInfo.processInfo.environment
        var candidates: [System]
        if let system {
            candidates = [system]
        } else if let forced = environment[environmentVariable], !forced.isEmpty {
            guard let named = System(rawValue: forced.lowercased()) else {
                throw PreviewError.windowSystem(what: "\(environmentVariable)=\(forced) names no window system",
                                                hint: "use x11 or wayland, or unset it")
            }
            candidates = [named]
        } else {
            candidates = System.allCases.reversed()  // Wayland first
        }
        var tried: [String] = []
        for candidate in candidates {
            switch candidate {
            case .x11:
                guard let name = displayName ?? environment["DISPLAY"], !name.isEmpty else {
                    tried.append("DISPLAY is not set")
                    continue
                }
                XInitThreads()  // EGL draws from the render and presentation threads
                // Xlib's default handler ends the process on any protocol error (a window the
                // server destroyed): a failing call shows up through EGL or the event loop instead.
                XSetErrorHandler { _, _ in 0 }
                guard let display = XOpenDisplay(name) else {
                    tried.append("DISPLAY=\(name): cannot open the X11 display")
                    continue
                }
                let connected = PreviewDisplay(system: .x11, nativeDisplay: UnsafeMutableRawPointer(display),
                                               name: "X11 display \(name)", connection: .x11(ThreadSafeHandle(display)))
                // A lost X server ends the process in Xlib's default handlers: instead, the
                // connection is marked lost and its windows ask their pipelines to end.
                XSetIOErrorHandler { _ in 0 }
                XSetIOErrorExitHandler(display, { _, data in
                    guard let data else { return }
                    Unmanaged<PreviewDisplay>.fromOpaque(data).takeUnretainedValue().lost.store(true, ordering: .releasing)
                }, Unmanaged.passUnretained(connected).toOpaque())
                return connected
            case .wayland:
                guard let name = displayName ?? environment["WAYLAND_DISPLAY"], !name.isEmpty else {
                    tried.append("WAYLAND_DISPLAY is not set")
                    continue
                }
                do {
                    let connection = try WaylandConnection(name: name)
                    return PreviewDisplay(system: .wayland, nativeDisplay: connection.nativeDisplay,
                                          name: "Wayland display \(name)", connection: .wayland(connection))
                } catch {
                    tried.append("WAYLAND_DISPLAY=\(name): \(error)")
                }
            }
        }
        throw PreviewError.noWindowSystem(tried: tried)
    }

    /// A new window of this display, with the visual the context's configuration needs.
    func makeWindow(title: String, width: Int, height: Int, context: RenderContext) throws -> NativeWindow {
        switch connection {
        case let .x11(display):
            return try X11Window(display: display.raw, visualID: context.nativeVisualID, title: title,
                                 width: width, height: height) { [weak self] in
                self?.lost.load(ordering: .acquiring) ?? true
            }
        case let .wayland(connection):
            return try WaylandWindow(connection: connection, title: title, width: width, height: height)
        }
    }

    /// The largest window that fits on the screen (X11), or nil when the window system does not say.
    var screenSize: (width: Int, height: Int)? {
        guard case let .x11(handle) = connection else { return nil }
        let display = handle.raw
        let screen = XDefaultScreen(display)
        return (Int(XDisplayWidth(display, screen)), Int(XDisplayHeight(display, screen)))
    }
}
