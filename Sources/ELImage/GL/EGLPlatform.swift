import CEGL
import CGBM
import Foundation
import Synchronization

/// How the EGL display is opened: headless (the default) or on a window system's display.
public enum EGLPlatform: String, Sendable, CaseIterable, CustomStringConvertible {
    /// A GPU render node (`/dev/dri/renderD*`) through GBM (Mesa drivers: Intel, AMD, ...).
    case gbm
    /// `EGL_EXT_platform_device`: a GPU enumerated by the driver without a render node (NVIDIA).
    case device
    /// Mesa's surfaceless platform; with no GPU this is llvmpipe (software GLES 3).
    case surfaceless
    /// An X11 display (`EGL_PLATFORM_X11_KHR`), for contexts that draw into windows.
    case x11
    /// A Wayland display (`EGL_PLATFORM_WAYLAND_KHR`), for contexts that draw into windows.
    case wayland

    /// The platforms that need no window system, in the order they are tried.
    public static let headless: [EGLPlatform] = [.gbm, .device, .surfaceless]

    /// True for the window-system platforms (`.x11`, `.wayland`), opened on a `WindowSystemDisplay`.
    public var isWindowSystem: Bool { self == .x11 || self == .wayland }

    /// The environment variable that overrides the automatic choice.
    public static let environmentVariable = "ELIMAGE_EGL_PLATFORM"

    /// The platforms to try, in order: the one named by `ELIMAGE_EGL_PLATFORM` if set, else
    /// GBM when a render node exists, then GPU devices, then surfaceless.
    static func candidates(requested: EGLPlatform?) throws -> [EGLPlatform] {
        if let requested { return [requested] }
        if let name = ProcessInfo.processInfo.environment[environmentVariable], !name.isEmpty {
            guard let platform = EGLPlatform(rawValue: name.lowercased()), !platform.isWindowSystem else {
                throw ELImageError.invalidInput(
                    what: "\(environmentVariable)=\(name) names no headless EGL platform",
                    hint: "use one of \(headless.map(\.rawValue).joined(separator: ", ")), or unset it "
                        + "(windows open their display with RenderContext(windowSystem:))")
            }
            return [platform]
        }
        return headless
    }

    public var description: String { rawValue }
}

/// An initialized EGL display with what it took to open it (a GBM device and its file for `.gbm`).
final class EGLDisplayHandle: Sendable {
    private let handle: ThreadSafeHandle<EGLDisplay>
    var display: EGLDisplay { handle.raw }
    let platform: EGLPlatform
    /// What the display runs on: the render node path, the EGL device's name, or "Mesa surfaceless".
    let source: String
    let extensions: Set<String>
    private let gbm: ThreadSafeHandle<OpaquePointer?>
    private let gbmFile: Int32
    /// The window system's connection, kept open while the display is in use.
    private let windowSystem: (any WindowSystemDisplay)?

    private init(display: EGLDisplay, platform: EGLPlatform, source: String, gbmDevice: OpaquePointer?, gbmFile: Int32,
                 windowSystem: (any WindowSystemDisplay)? = nil) {
        handle = ThreadSafeHandle(display)
        self.windowSystem = windowSystem
        self.platform = platform
        self.source = source
        gbm = ThreadSafeHandle(gbmDevice)
        self.gbmFile = gbmFile
        self.extensions = Set((eglQueryString(display, EGL_EXTENSIONS).map { String(cString: $0) } ?? "")
            .split(separator: " ").map(String.init))
    }

    private let released = Atomic<Bool>(false)

    /// Lets go of the display (terminated when no other context uses it), the GBM device and its
    /// file. Idempotent; call after every context on the display was destroyed.
    func release() {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        EGLDisplayRegistry.release(display)
        if let gbmDevice = gbm.raw { gbm_device_destroy(gbmDevice) }
        if gbmFile >= 0 { close(gbmFile) }
    }

    deinit { release() }

    /// Opens the first platform of `candidates` that works; the error lists every attempt.
    static func open(candidates: [EGLPlatform]) throws -> EGLDisplayHandle {
        var attempts: [String] = []
        for platform in candidates {
            do {
                return try open(platform, explicitlyRequested: candidates.count == 1)
            } catch {
                attempts.append("\(platform): \(error.reason)")
            }
        }
        throw ELImageError.noDisplay(
            tried: attempts,
            hint: "Install Mesa's EGL and drivers (apt-get install libegl1 libegl-mesa0 libgl1-mesa-dri libgbm1) "
                + "for GBM and the surfaceless software renderer, or the GPU vendor's EGL driver "
                + "(e.g. NVIDIA's libnvidia-egl) for the device platform; "
                + "\(EGLPlatform.environmentVariable) picks a platform (\(DocumentationPage.choosingTheGPU.pointer))")
    }

    /// Opens the EGL display of a window system's connection (X11 or Wayland).
    static func open(windowSystem: any WindowSystemDisplay) throws -> EGLDisplayHandle {
        let platform = windowSystem.platform
        let (eglPlatform, extensionNames): (Int32, [String]) = platform == .wayland
            ? (EGL_PLATFORM_WAYLAND_KHR, ["EGL_KHR_platform_wayland", "EGL_EXT_platform_wayland"])
            : (EGL_PLATFORM_X11_KHR, ["EGL_KHR_platform_x11", "EGL_EXT_platform_x11"])
        let hint = "install Mesa's EGL (apt-get install libegl1 libegl-mesa0 libgl1-mesa-dri), or use a headless RenderContext()"
        guard platform.isWindowSystem else {
            throw ELImageError.noDisplay(tried: ["\(platform): not a window system"], hint: hint)
        }
        guard extensionNames.contains(where: clientExtensions.contains) else {
            throw ELImageError.noDisplay(tried: ["\(platform): \(extensionNames[0]) is not offered by libEGL"], hint: hint)
        }
        do {
            let display = try initialize(eglGetPlatformDisplay(EGLenum(eglPlatform), windowSystem.nativeDisplay, nil))
            return EGLDisplayHandle(display: display, platform: platform, source: windowSystem.name,
                                    gbmDevice: nil, gbmFile: -1, windowSystem: windowSystem)
        } catch {
            throw ELImageError.noDisplay(tried: ["\(platform) \(windowSystem.name): \(error.reason)"], hint: hint)
        }
    }

    private struct PlatformFailure: Error { let reason: String }

    private static var clientExtensions: Set<String> {
        Set((eglQueryString(nil, EGL_EXTENSIONS).map { String(cString: $0) } ?? "")
            .split(separator: " ").map(String.init))
    }

    private static func open(_ platform: EGLPlatform, explicitlyRequested: Bool) throws(PlatformFailure) -> EGLDisplayHandle {
        let client = clientExtensions
        guard client.contains("EGL_EXT_platform_base") || client.contains("EGL_KHR_platform_base") || !client.isEmpty else {
            throw PlatformFailure(reason: "libEGL has no client extensions (no EGL vendor library installed?)")
        }
        switch platform {
        case .surfaceless:
            guard client.contains("EGL_MESA_platform_surfaceless") else {
                throw PlatformFailure(reason: "EGL_MESA_platform_surfaceless missing (libegl-mesa0 not installed?)")
            }
            let display = try initialize(eglGetPlatformDisplay(EGLenum(EGL_PLATFORM_SURFACELESS_MESA), nil, nil))
            return EGLDisplayHandle(display: display, platform: .surfaceless, source: "Mesa surfaceless",
                                    gbmDevice: nil, gbmFile: -1)
        case .device:
            return try openDevice(client: client, allowSoftware: explicitlyRequested)
        case .gbm:
            return try openGBM(client: client)
        case .x11, .wayland:
            throw PlatformFailure(reason: "needs a window system's display: use RenderContext(windowSystem:)")
        }
    }

    private static func openDevice(client: Set<String>, allowSoftware: Bool) throws(PlatformFailure) -> EGLDisplayHandle {
        guard client.contains("EGL_EXT_platform_device"),
              let queryDevicesPointer = eglGetProcAddress("eglQueryDevicesEXT"),
              let queryStringPointer = eglGetProcAddress("eglQueryDeviceStringEXT")
        else { throw PlatformFailure(reason: "EGL_EXT_platform_device is not offered") }
        typealias QueryDevices = @convention(c) (EGLint, UnsafeMutablePointer<EGLDeviceEXT?>?, UnsafeMutablePointer<EGLint>?) -> EGLBoolean
        typealias QueryDeviceString = @convention(c) (EGLDeviceEXT?, EGLint) -> UnsafePointer<CChar>?
        let queryDevices = unsafeBitCast(queryDevicesPointer, to: QueryDevices.self)
        let queryString = unsafeBitCast(queryStringPointer, to: QueryDeviceString.self)
        var count: EGLint = 0
        guard queryDevices(0, nil, &count) == EGL_TRUE, count > 0 else {
            throw PlatformFailure(reason: "no EGL devices")
        }
        var devices = [EGLDeviceEXT?](repeating: nil, count: Int(count))
        guard queryDevices(count, &devices, &count) == EGL_TRUE else {
            throw PlatformFailure(reason: "eglQueryDevicesEXT failed")
        }
        var skipped: [String] = []
        for device in devices.prefix(Int(count)) {
            let extensions = queryString(device, EGL_EXTENSIONS).map { String(cString: $0) } ?? ""
            let node = queryString(device, EGLint(EGL_DRM_RENDER_NODE_FILE_EXT)).map { String(cString: $0) }
            let isSoftware = extensions.contains("EGL_MESA_device_software")
            let name = node ?? (isSoftware ? "software device" : "EGL device")
            if isSoftware && !allowSoftware {
                skipped.append(name)
                continue
            }
            guard let display = try? initialize(eglGetPlatformDisplay(EGLenum(EGL_PLATFORM_DEVICE_EXT), device, nil)) else {
                skipped.append("\(name) (initialization failed)")
                continue
            }
            return EGLDisplayHandle(display: display, platform: .device, source: name, gbmDevice: nil, gbmFile: -1)
        }
        throw PlatformFailure(reason: "no GPU device (skipped: \(skipped.joined(separator: ", ")))")
    }

    private static func openGBM(client: Set<String>) throws(PlatformFailure) -> EGLDisplayHandle {
        guard client.contains("EGL_KHR_platform_gbm") || client.contains("EGL_MESA_platform_gbm") else {
            throw PlatformFailure(reason: "EGL_KHR_platform_gbm is not offered")
        }
        let nodes = ((try? FileManager.default.contentsOfDirectory(atPath: "/dev/dri")) ?? [])
            .filter { $0.hasPrefix("renderD") }.sorted().map { "/dev/dri/" + $0 }
        guard !nodes.isEmpty else { throw PlatformFailure(reason: "no /dev/dri/renderD* render node") }
        var problems: [String] = []
        for node in nodes {
            let file = Glibc.open(node, O_RDWR | O_CLOEXEC)
            guard file >= 0 else {
                let hint = errno == EACCES ? " (add your user to the 'render' group)" : ""
                problems.append("\(node): \(String(cString: strerror(errno)))\(hint)")
                continue
            }
            guard let device = gbm_create_device(file) else {
                close(file)
                problems.append("\(node): gbm_create_device failed")
                continue
            }
            guard let display = try? initialize(eglGetPlatformDisplay(EGLenum(EGL_PLATFORM_GBM_KHR), UnsafeMutableRawPointer(device), nil)) else {
                gbm_device_destroy(device)
                close(file)
                problems.append("\(node): eglInitialize failed")
                continue
            }
            return EGLDisplayHandle(display: display, platform: .gbm, source: node, gbmDevice: device, gbmFile: file)
        }
        throw PlatformFailure(reason: problems.joined(separator: "; "))
    }

    private static func initialize(_ display: EGLDisplay?) throws(PlatformFailure) -> EGLDisplay {
        guard let display else { throw PlatformFailure(reason: "eglGetPlatformDisplay returned no display") }
        guard EGLDisplayRegistry.retain(display) else {
            throw PlatformFailure(reason: "eglInitialize failed with \(EGLErrorName.name(of: eglGetError()))")
        }
        return display
    }
}

/// Counts the users of each EGL display: `eglGetPlatformDisplay` returns the same handle for the same
/// native display, and `eglTerminate` would pull it from under every other `RenderContext` using it.
enum EGLDisplayRegistry {
    private static let users = Locked<[UInt: Int]>([:])

    /// Initializes the display on first use. False when `eglInitialize` fails.
    static func retain(_ display: EGLDisplay) -> Bool {
        let key = UInt(bitPattern: display)
        return users.withLock { users in
            if let count = users[key] {
                users[key] = count + 1
                return true
            }
            var major: EGLint = 0, minor: EGLint = 0
            guard eglInitialize(display, &major, &minor) == EGL_TRUE else { return false }
            users[key] = 1
            return true
        }
    }

    static func release(_ display: EGLDisplay) {
        let key = UInt(bitPattern: display)
        users.withLock { users in
            guard let count = users[key] else { return }
            if count > 1 {
                users[key] = count - 1
            } else {
                users[key] = nil
                eglTerminate(display)
            }
        }
    }
}
