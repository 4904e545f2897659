import ELImage

/// What an output device's driver agreed to: the format, size and row stride frames are written
/// in, and the frame rate announced to consumers.
public struct VirtualCameraMode: Sendable, Hashable, CustomStringConvertible {
    /// The pixel format written, e.g. YUYV.
    public var fourCC: FourCC
    public var width: Int
    public var height: Int
    /// Bytes from one luma row to the next in the driver's buffers.
    public var bytesPerLine: Int
    /// Bytes of one frame in the driver's buffers (`bytesused` of every frame queued).
    public var imageSize: Int
    /// The frame interval the driver kept.
    public var interval: FrameInterval

    /// The planes ELImage packs for this format (`fourCC` is always one it writes).
    var pixelFormat: PixelFormat { fourCC.pixelFormat ?? .yuyv }

    /// E.g. "YUYV 1280x720 @ 30 fps".
    public var description: String { "\(fourCC) \(width)x\(height) @ \(interval)" }
}
