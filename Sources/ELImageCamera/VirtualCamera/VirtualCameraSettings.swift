import ELImage

/// How a `VirtualCamera` writes to its V4L2 output device.
public struct VirtualCameraSettings: Sendable, Equatable {
    /// The pixel formats offered to the driver, most wanted first; the driver's answer decides.
    /// YUYV first: what USB webcams send and every consumer reads (browsers, Zoom, OBS).
    /// ELImage writes YUYV, UYVY, YU12 (I420), YV12, NV12, NV21, 422P and GREY.
    public var formats: [FourCC]
    /// The size to ask the driver for; `nil` takes the first frame's. A driver with a fixed size
    /// answers with its own, and frames are scaled to it.
    public var width: Int?
    public var height: Int?
    /// How frames of another shape fill the driver's size: `.fit` (black bars), `.fill`
    /// (cropped) or `.stretch`.
    public var scaling: FrameScaling
    /// The frame rate announced to consumers (`VIDIOC_S_PARM`).
    public var framesPerSecond: Double
    /// The Y'CbCr matrix and range written: BT.601 limited range, which consumers assume for a
    /// webcam whatever its size.
    public var colorSpace: ColorSpace
    /// The chroma filter of subsampled formats: `.average` (default: one pass, what consumers that
    /// only display need), or `.matched`, which keeps a Y'CbCr source's chroma through the trip
    /// (an extra pass: about a third more per frame at 720p on llvmpipe).
    public var chromaDownsampling: ChromaDownsampling
    /// How long to keep reopening a device that went away (unloaded, reconfigured) before the run
    /// fails; `nil` keeps trying for as long as frames come. Frames meanwhile are dropped and counted.
    public var reconnectWindow: Duration?
    /// The driver buffers asked for (`VIDIOC_REQBUFS`).
    public var bufferCount: Int
    /// Frames waiting for the writer thread; when it is full a new frame is dropped and counted
    /// (the device never slows the graph).
    public var queueCapacity: Int

    public init(formats: [FourCC] = [.yuyv, .yu12, .nv12, .uyvy], width: Int? = nil, height: Int? = nil,
                scaling: FrameScaling = .fit, framesPerSecond: Double = 30, colorSpace: ColorSpace = .bt601,
                chromaDownsampling: ChromaDownsampling = .average, reconnectWindow: Duration? = nil, bufferCount: Int = 4,
                queueCapacity: Int = 4) {
        self.formats = formats
        self.width = width
        self.height = height
        self.scaling = scaling
        self.framesPerSecond = framesPerSecond
        self.colorSpace = colorSpace
        self.chromaDownsampling = chromaDownsampling
        self.reconnectWindow = reconnectWindow
        self.bufferCount = bufferCount
        self.queueCapacity = queueCapacity
    }

    /// The formats ELImage can write to an output device (each packs on the GPU).
    public static let writableFormats: [FourCC] = [.yuyv, .uyvy, .yu12, .yv12, .nv12, .nv21, .yuv422p, .grey]

    /// Checks the settings before a device is touched.
    /// - Throws: `ELImageError.invalidInput` naming the bad value.
    func validate(path: String) throws {
        guard !formats.isEmpty else {
            throw ELImageError.invalidInput(what: "\(path): no pixel format to offer the virtual camera",
                                            hint: "give at least one of \(Self.writableFormats.map(\.description).joined(separator: ", "))")
        }
        if let unwritable = formats.first(where: { !Self.writableFormats.contains($0) }) {
            throw ELImageError.invalidInput(
                what: "\(path): ELImage cannot write \(unwritable) frames to a virtual camera",
                hint: "choose among \(Self.writableFormats.map(\.description).joined(separator: ", "))")
        }
        if (width == nil) != (height == nil) || (width ?? 2) < 2 || (height ?? 2) < 2 {
            throw ELImageError.invalidInput(what: "\(path): virtual camera size \(width.map(String.init) ?? "?")x\(height.map(String.init) ?? "?")",
                                            hint: "give both width and height, each at least 2, or neither")
        }
        guard framesPerSecond.isFinite, framesPerSecond > 0, framesPerSecond <= 1000 else {
            throw ELImageError.invalidInput(what: "\(path): virtual camera frame rate \(framesPerSecond)",
                                            hint: "give a rate above 0 and at most 1000 frames a second")
        }
        guard (1...32).contains(bufferCount), (1...64).contains(queueCapacity) else {
            throw ELImageError.invalidInput(what: "\(path): \(bufferCount) driver buffers, a queue of \(queueCapacity)",
                                            hint: "ask for 1 to 32 buffers and a queue of 1 to 64 frames")
        }
    }
}
