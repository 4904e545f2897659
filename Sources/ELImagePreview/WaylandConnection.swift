import CWayland
import CXDGShell
import ELImage
import Foundation

/// A Wayland connection with the globals a preview window needs: the compositor, xdg-shell's
/// `xdg_wm_base`, the seat's keyboard and the outputs' scale factors (HiDPI). Its default event
/// queue is dispatched by the windows'
/// presentation threads (`dispatchPending()`); EGL uses queues of its own.
final class WaylandConnection: @unchecked Sendable {
    // @unchecked Sendable: the globals are set during init's round trips, before any other thread
    // sees the connection; `windows` is guarded by its lock; libwayland-client is thread-safe.
    let display: OpaquePointer
    private var registry: OpaquePointer?
    private(set) var compositor: OpaquePointer?
    private(set) var windowManager: OpaquePointer?
    private var seat: OpaquePointer?
    private var keyboard: OpaquePointer?
    private var outputs: [OpaquePointer] = []
    /// Each output's scale factor (`wl_output.scale`), by the output's address.
    private let outputScales = Locked<[UInt: Int32]>([:])
    private let windows = Locked<[WeakWindow]>([])

    private struct WeakWindow { weak var window: WaylandWindow? }

    var nativeDisplay: UnsafeMutableRawPointer { UnsafeMutableRawPointer(display) }

    /// Connects to the compositor `name` (a socket name in `XDG_RUNTIME_DIR`, or a path).
    init(name: String) throws {
        guard let display = wl_display_connect(name) else {
            throw PreviewError.windowSystem(what: "cannot connect to the Wayland compositor \(name)",
                                            hint: "check WAYLAND_DISPLAY and XDG_RUNTIME_DIR")
        }
        self.display = display
        registry = wl_display_get_registry(display)
        wl_registry_add_listener(registry, Self.registryListener, Unmanaged.passUnretained(self).toOpaque())
        wl_display_roundtrip(display)  // the globals
        wl_display_roundtrip(display)  // the seat's capabilities, the outputs' scales
        guard compositor != nil, windowManager != nil else {
            disconnect()
            throw PreviewError.windowSystem(what: "the Wayland compositor \(name) offers no xdg_wm_base (xdg-shell)",
                                            hint: "use a desktop compositor (GNOME, KDE, weston with desktop-shell)")
        }
    }

    /// Destroys the globals and closes the connection (after every window and EGL display on it).
    func disconnect() {
        outputs.forEach { wl_output_destroy($0) }
        outputs = []
        if let keyboard { wl_keyboard_destroy(keyboard) }
        if let seat { wl_seat_destroy(seat) }
        if let windowManager { xdg_wm_base_destroy(windowManager) }
        if let compositor { wl_compositor_destroy(compositor) }
        if let registry { wl_registry_destroy(registry) }
        (keyboard, seat, windowManager, compositor, registry) = (nil, nil, nil, nil, nil)
        wl_display_disconnect(display)
    }

    func add(_ window: WaylandWindow) {
        windows.withLock { $0 = $0.filter { $0.window != nil } + [WeakWindow(window: window)] }
    }

    /// Reads what the compositor sent and dispatches it to the listeners; never blocks.
    func dispatchPending() {
        while wl_display_prepare_read(display) != 0 { wl_display_dispatch_pending(display) }
        wl_display_flush(display)
        var descriptor = pollfd(fd: wl_display_get_fd(display), events: Int16(POLLIN), revents: 0)
        if poll(&descriptor, 1, 0) > 0 {
            wl_display_read_events(display)
        } else {
            wl_display_cancel_read(display)
        }
        wl_display_dispatch_pending(display)
    }

    /// The scale factor of `output` (1 until the compositor says otherwise).
    func scale(of output: OpaquePointer) -> Int32 {
        outputScales.withLock { $0[UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(output)))] } ?? 1
    }

    private func keyPressed(_ code: UInt32) {
        guard let key = Self.key(forEvdevCode: code) else { return }
        windows.withLock { $0.compactMap(\.window) }.forEach { $0.post(.key(key)) }
    }

    /// Linux input key codes (evdev) of the US layout's letters, digits and space; Escape.
    static func key(forEvdevCode code: UInt32) -> PreviewKey? {
        if code == 1 { return .escape }
        if code == 57 { return .character(" ") }
        let rows: [(first: UInt32, keys: String)] = [(2, "1234567890"), (16, "qwertyuiop"), (30, "asdfghjkl"), (44, "zxcvbnm")]
        for row in rows where code >= row.first && code < row.first + UInt32(row.keys.count) {
            return .character(Array(row.keys)[Int(code - row.first)])
        }
        return nil
    }

    private static func connection(_ data: UnsafeMutableRawPointer?) -> WaylandConnection? {
        data.map { Unmanaged<WaylandConnection>.fromOpaque($0).takeUnretainedValue() }
    }

    private nonisolated(unsafe) static let registryListener = listener(wl_registry_listener(
        global: { data, registry, name, interface, version in
            guard let connection = connection(data), let interface else { return }
            switch String(cString: interface) {
            case "wl_compositor":
                connection.compositor = OpaquePointer(wl_registry_bind(registry, name, elimage_wl_compositor_interface(), min(version, 4)))
            case "xdg_wm_base":
                let base = OpaquePointer(wl_registry_bind(registry, name, elimage_xdg_wm_base_interface(), 1))
                connection.windowManager = base
                xdg_wm_base_add_listener(base, wmBaseListener, data)
            case "wl_output" where version >= 2:  // version 2 brings the scale event
                guard let output = OpaquePointer(wl_registry_bind(registry, name, elimage_wl_output_interface(), 2)) else { return }
                connection.outputs.append(output)
                wl_output_add_listener(output, outputListener, data)
            case "wl_seat" where connection.seat == nil:
                let seat = OpaquePointer(wl_registry_bind(registry, name, elimage_wl_seat_interface(), min(version, 5)))
                connection.seat = seat
                wl_seat_add_listener(seat, seatListener, data)
            default:
                break
            }
        },
        global_remove: { _, _, _ in }))

    private nonisolated(unsafe) static let wmBaseListener = listener(xdg_wm_base_listener(
        ping: { _, base, serial in xdg_wm_base_pong(base, serial) }))

    private nonisolated(unsafe) static let outputListener = listener(wl_output_listener(
        geometry: { _, _, _, _, _, _, _, _, _, _ in },
        mode: { _, _, _, _, _, _ in },
        done: { _, _ in },
        scale: { data, output, factor in
            guard let connection = connection(data), let output else { return }
            let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(output)))
            connection.outputScales.withLock { $0[key] = max(1, factor) }
            connection.windows.withLock { $0.compactMap(\.window) }.forEach { $0.outputsChanged() }
        },
        name: { _, _, _ in },
        description: { _, _, _ in }))

    private nonisolated(unsafe) static let seatListener = listener(wl_seat_listener(
        capabilities: { data, seat, capabilities in
            guard let connection = connection(data) else { return }
            let hasKeyboard = capabilities & WL_SEAT_CAPABILITY_KEYBOARD.rawValue != 0
            if hasKeyboard, connection.keyboard == nil {
                connection.keyboard = wl_seat_get_keyboard(seat)
                wl_keyboard_add_listener(connection.keyboard, keyboardListener, data)
            }
        },
        name: { _, _, _ in }))

    private nonisolated(unsafe) static let keyboardListener = listener(wl_keyboard_listener(
        keymap: { _, _, _, file, _ in close(file) },
        enter: { _, _, _, _, _ in },
        leave: { _, _, _, _ in },
        key: { data, _, _, _, key, state in
            if state == WL_KEYBOARD_KEY_STATE_PRESSED.rawValue { connection(data)?.keyPressed(key) }
        },
        modifiers: { _, _, _, _, _, _, _ in },
        repeat_info: { _, _, _, _ in }))
}

/// A listener in memory that lives as long as the process (libwayland keeps its address).
func listener<Listener>(_ value: Listener) -> UnsafeMutablePointer<Listener> {
    let stored = UnsafeMutablePointer<Listener>.allocate(capacity: 1)
    stored.initialize(to: value)
    return stored
}
