import ELImage
import Foundation

/// Builds the `ELImageError`s of camera failures: the device path, the operation, the errno and
/// what to do about it.
enum DeviceErrors {
    /// A failed call on the device at `path`, e.g. `operation` "open" or "dequeue frame 12 from".
    static func failure(_ error: DeviceErrno, _ operation: String, path: String) -> ELImageError {
        .io(file: path, operation: operation, errno: error.code, hint: hint(for: error, path: path))
    }

    /// No frame arrived for `timeout`.
    static func stalled(path: String, timeout: Duration, frame: Int) -> ELImageError {
        .io(file: path, operation: "wait for frame \(frame) from", errno: ETIMEDOUT,
            hint: "errno ETIMEDOUT: no frame for \(seconds(timeout)) s, the device stalled; unplug and replug it, "
                + "or raise CaptureSettings.stallTimeout for a slow mode")
    }

    /// The camera cannot deliver frames in a usable format.
    static func unsupported(path: String, what: String, hint: String) -> ELImageError {
        .invalidInput(what: "\(path): \(what)", hint: hint)
    }

    static func hint(for error: DeviceErrno, path: String) -> String {
        let advice: String
        switch error.code {
        case EACCES, EPERM:
            advice = "permission denied: add your user to the 'video' group (sudo usermod -aG video $USER, then log in again)"
        case ENOENT:
            advice = "no such device: check the path, or list cameras with `elimage devices`"
        case EBUSY:
            advice = "the device is busy: another program is using it; close that program (find it with `fuser \(path)`)"
        case ENODEV, ENXIO:
            advice = "the device is gone: it was unplugged or its driver was unloaded; plug it back in and start again"
        case EIO, EPROTO, EPIPE:
            advice = "the device reported an I/O error (a loose cable, a hub without enough power, or a failing camera)"
        case ENOSPC:
            advice = "not enough USB bandwidth: choose a smaller size or MJPEG, or use another USB port"
        case ENOTTY:
            advice = "the device does not support this request: it may not be a V4L2 capture device"
        case EINVAL:
            advice = "the driver rejected the request's values"
        case ENOMEM:
            advice = "the driver could not allocate buffers: ask for fewer (CaptureSettings.bufferCount)"
        default:
            advice = ""
        }
        return "errno \(error.name)" + (advice.isEmpty ? "" : ": \(advice)")
    }

    /// "3600", "2.5", "0.033": to the millisecond, no exponent, no trailing zeros.
    private static func seconds(_ duration: Duration) -> String {
        let (whole, attoseconds) = duration.components
        var text = String(format: "%.3f", Double(whole) + Double(attoseconds) / 1e18)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
