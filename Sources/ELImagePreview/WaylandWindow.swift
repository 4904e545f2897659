import CWayland
import CXDGShell
import ELImage

/// An xdg-shell toplevel with a `wl_egl_window` for EGL, its title, fullscreen, the close
/// request and configure events; keys come through its connection.
///
/// HiDPI: sizes are in the compositor's logical units; the EGL window has the size times the
/// highest scale factor of the outputs the surface is on, with that buffer scale, so the
/// compositor shows its pixels 1:1 instead of enlarging a low-resolution picture.
final class WaylandWindow: NativeWindow, @unchecked Sendable {
    // @unchecked Sendable: listeners may run on another window's thread; they only post events
    // (`events` is locked) or touch the EGL window size under `size`'s lock.
    private let connection: WaylandConnection
    private let surface: OpaquePointer
    private let xdgSurface: OpaquePointer
    private let toplevel: OpaquePointer
    private let window: OpaquePointer
    private let events = Locked<[WindowEvent]>([])
    /// The logical size, the outputs the surface is on (by address) and the buffer scale.
    private let size: Locked<(width: Int, height: Int, outputs: [UInt: OpaquePointer], scale: Int32)>
    private let configured = Locked(false)
    private var destroyed = false
    private var lost = false

    var eglWindow: UnsafeMutableRawPointer { UnsafeMutableRawPointer(window) }

    init(connection: WaylandConnection, title: String, width: Int, height: Int) throws {
        self.connection = connection
        guard let compositor = connection.compositor, let windowManager = connection.windowManager,
              let surface = wl_compositor_create_surface(compositor) else {
            throw PreviewError.windowSystem(what: "the Wayland compositor refused a surface", hint: "check the compositor")
        }
        self.surface = surface
        xdgSurface = xdg_wm_base_get_xdg_surface(windowManager, surface)
        toplevel = xdg_surface_get_toplevel(xdgSurface)
        size = Locked((max(1, width), max(1, height), [:], 1))
        guard let window = wl_egl_window_create(surface, Int32(max(1, width)), Int32(max(1, height))) else {
            xdg_toplevel_destroy(toplevel)
            xdg_surface_destroy(xdgSurface)
            wl_surface_destroy(surface)
            throw PreviewError.windowSystem(what: "wl_egl_window_create failed", hint: "check libwayland-egl")
        }
        self.window = window
        let me = Unmanaged.passUnretained(self).toOpaque()
        wl_surface_add_listener(surface, Self.outputListener, me)
        xdg_surface_add_listener(xdgSurface, Self.surfaceListener, me)
        xdg_toplevel_add_listener(toplevel, Self.toplevelListener, me)
        xdg_toplevel_set_app_id(toplevel, "elimage")
        setTitle(title)
        wl_surface_commit(surface)
        // No buffer may be attached before the first configure.
        for _ in 0..<100 where !configured.withLock({ $0 }) {
            guard wl_display_roundtrip(connection.display) >= 0 else { break }
        }
        guard configured.withLock({ $0 }) else {
            destroy()
            throw PreviewError.windowSystem(what: "the Wayland compositor never configured the window",
                                            hint: "use a compositor with xdg-shell (weston: --shell=desktop-shell.so)")
        }
        connection.add(self)
    }

    func post(_ event: WindowEvent) {
        events.withLock { $0.append(event) }
    }

    var isLost: Bool { lost }

    func pendingEvents() -> [WindowEvent] {
        connection.dispatchPending()
        if wl_display_get_error(connection.display) != 0, !lost {
            lost = true  // the compositor quit or dropped the connection
            post(.closeRequested)
        }
        return events.withLock { pending in
            defer { pending = [] }
            return pending
        }
    }

    func setTitle(_ title: String) {
        xdg_toplevel_set_title(toplevel, title)
        wl_display_flush(connection.display)
    }

    func setFullscreen(_ fullscreen: Bool) {
        if fullscreen { xdg_toplevel_set_fullscreen(toplevel, nil) } else { xdg_toplevel_unset_fullscreen(toplevel) }
        wl_display_flush(connection.display)
    }

    /// A Wayland client chooses its window's size (logical units): the EGL window is resized at once.
    func resize(width: Int, height: Int) {
        size.withLock { size in
            (size.width, size.height) = (max(1, width), max(1, height))
            wl_egl_window_resize(window, Int32(size.width) * size.scale, Int32(size.height) * size.scale, 0, 0)
        }
    }

    /// The surface entered or left an output, or an output's scale changed: the buffer follows the
    /// highest scale among the outputs the surface is on.
    func outputsChanged() {
        size.withLock { size in
            let scale = size.outputs.values.map { connection.scale(of: $0) }.max() ?? 1
            guard scale != size.scale else { return }
            size.scale = scale
            wl_surface_set_buffer_scale(surface, scale)
            wl_egl_window_resize(window, Int32(size.width) * scale, Int32(size.height) * scale, 0, 0)
        }
    }

    private func surface(_ output: OpaquePointer?, entered: Bool) {
        guard let output else { return }
        let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(output)))
        size.withLock { $0.outputs[key] = entered ? output : nil }
        outputsChanged()
    }

    func destroy() {
        guard !destroyed else { return }
        destroyed = true
        wl_egl_window_destroy(window)
        xdg_toplevel_destroy(toplevel)
        xdg_surface_destroy(xdgSurface)
        wl_surface_destroy(surface)
        wl_display_flush(connection.display)
    }

    deinit { destroy() }

    private static func window(_ data: UnsafeMutableRawPointer?) -> WaylandWindow? {
        data.map { Unmanaged<WaylandWindow>.fromOpaque($0).takeUnretainedValue() }
    }

    private nonisolated(unsafe) static let outputListener = listener(wl_surface_listener(
        enter: { data, _, output in window(data)?.surface(output, entered: true) },
        leave: { data, _, output in window(data)?.surface(output, entered: false) }))

    private nonisolated(unsafe) static let surfaceListener = listener(xdg_surface_listener(
        configure: { data, xdgSurface, serial in
            xdg_surface_ack_configure(xdgSurface, serial)
            guard let window = window(data) else { return }
            window.configured.withLock { $0 = true }
            window.post(.exposed)
        }))

    private nonisolated(unsafe) static let toplevelListener = listener(xdg_toplevel_listener(
        configure: { data, _, width, height, _ in
            // 0 x 0: the client chooses (the frames' size).
            guard let window = window(data), width > 0, height > 0 else { return }
            window.resize(width: Int(width), height: Int(height))
            window.post(.resized(width: Int(width), height: Int(height)))
        },
        close: { data, _ in window(data)?.post(.closeRequested) },
        configure_bounds: { _, _, _, _ in },
        wm_capabilities: { _, _, _ in }))
}
