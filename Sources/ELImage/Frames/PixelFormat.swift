/// The layout of pixels in CPU memory: how many planes, their sample sizes and subsampling.
public enum PixelFormat: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Planar Y, U, V; chroma halved in both directions (4:2:0). ffmpeg `yuv420p`.
    case i420
    /// Planar Y, V, U; 4:2:0.
    case yv12
    /// Y plane, then interleaved U/V; 4:2:0.
    case nv12
    /// Y plane, then interleaved V/U; 4:2:0.
    case nv21
    /// Packed Y0 U Y1 V; chroma halved horizontally (4:2:2).
    case yuyv
    /// Packed U Y0 V Y1; 4:2:2.
    case uyvy
    /// Planar Y, U, V; chroma halved horizontally (4:2:2). ffmpeg `yuv422p`.
    case i422
    /// Planar Y, U, V at full resolution (4:4:4). ffmpeg `yuv444p`.
    case i444
    /// One plane of 8-bit luma.
    case gray8
    /// Packed 8-bit red, green, blue.
    case rgb24
    /// Packed 8-bit blue, green, red, alpha.
    case bgra
    /// Packed 8-bit red, green, blue, alpha.
    case rgba
    /// Planar Y, U, V, 4:2:0, 10-bit samples in the low bits of little-endian 16-bit words. ffmpeg
    /// `yuv420p10le`, Y4M `C420p10`.
    case i420p10
    /// Y plane, then interleaved U/V, 4:2:0, 10-bit samples in the high bits of little-endian 16-bit
    /// words (the low 6 bits zero). ffmpeg `p010le`, what 10-bit hardware decoders and cameras give.
    case p010
    /// Packed 16-bit red, green, blue, alpha, little-endian. ffmpeg `rgba64le` (16-bit PNG).
    case rgba64

    /// One plane's geometry for an image of a given size.
    public struct PlaneShape: Sendable, Equatable {
        /// Pixels (or texels, for packed 4:2:2: pairs of pixels) per row.
        public var width: Int
        public var height: Int
        /// Bytes per texel: 1 (a plane of one component), 2 (interleaved chroma, or one 16-bit
        /// sample), 3 or 4 (packed, or two 16-bit samples), 8 (16-bit RGBA).
        public var bytesPerTexel: Int
        public var rowBytes: Int { width * bytesPerTexel }

        public init(width: Int, height: Int, bytesPerTexel: Int) {
            self.width = width
            self.height = height
            self.bytesPerTexel = bytesPerTexel
        }
    }

    public var planeCount: Int {
        switch self {
        case .i420, .yv12, .i422, .i444: 3
        case .nv12, .nv21: 2
        case .yuyv, .uyvy, .gray8, .rgb24, .bgra, .rgba, .rgba64: 1
        case .i420p10: 3
        case .p010: 2
        }
    }

    /// Bytes of one sample: 1, or 2 for the 10- and 16-bit formats (little-endian words).
    public var bytesPerSample: Int {
        switch self {
        case .i420p10, .p010, .rgba64: 2
        default: 1
        }
    }

    /// The bits a sample holds: 8, 10 or 16.
    public var bitsPerSample: Int {
        switch self {
        case .i420p10, .p010: 10
        case .rgba64: 16
        default: 8
        }
    }

    /// True for formats whose samples have more than 8 bits: their pictures are worked on in
    /// half-float frames (`TextureFormat.rgba16f`).
    public var isHighDepth: Bool { bitsPerSample > 8 }

    /// The largest value of a sample as its word holds it: 255, 1023 (10 bits in the low bits),
    /// 65472 (P010's 10 bits in the high bits) or 65535.
    public var largestStoredSample: Int {
        switch self {
        case .i420p10: 1023
        case .p010: 65472
        case .rgba64: 65535
        default: 255
        }
    }

    /// True for formats that hold Y'CbCr (they need a colour matrix to become RGB).
    public var isYUV: Bool {
        switch self {
        case .rgb24, .bgra, .rgba, .rgba64: false
        default: true
        }
    }

    /// True for formats with an alpha channel (RGBA, BGRA, RGBA64); pictures of the others are
    /// opaque (`TextureFrame.isOpaque`).
    public var hasAlpha: Bool { [.bgra, .rgba, .rgba64].contains(self) }

    /// The shape of plane `index` for a `width` x `height` image. Subsampled planes round up, as
    /// ffmpeg does for odd sizes.
    public func planeShape(_ index: Int, width: Int, height: Int) -> PlaneShape {
        let halfWidth = (width + 1) / 2, halfHeight = (height + 1) / 2
        switch (self, index) {
        case (.i420, 0), (.yv12, 0), (.nv12, 0), (.nv21, 0), (.i422, 0), (.i444, _), (.gray8, _):
            return PlaneShape(width: width, height: height, bytesPerTexel: 1)
        case (.i420, _), (.yv12, _):
            return PlaneShape(width: halfWidth, height: halfHeight, bytesPerTexel: 1)
        case (.nv12, _), (.nv21, _):
            return PlaneShape(width: halfWidth, height: halfHeight, bytesPerTexel: 2)
        case (.i422, _):
            return PlaneShape(width: halfWidth, height: height, bytesPerTexel: 1)
        case (.yuyv, _), (.uyvy, _):
            return PlaneShape(width: halfWidth, height: height, bytesPerTexel: 4)
        case (.rgb24, _):
            return PlaneShape(width: width, height: height, bytesPerTexel: 3)
        case (.bgra, _), (.rgba, _):
            return PlaneShape(width: width, height: height, bytesPerTexel: 4)
        case (.i420p10, 0), (.p010, 0):
            return PlaneShape(width: width, height: height, bytesPerTexel: 2)
        case (.i420p10, _):
            return PlaneShape(width: halfWidth, height: halfHeight, bytesPerTexel: 2)
        case (.p010, _):
            return PlaneShape(width: halfWidth, height: halfHeight, bytesPerTexel: 4)
        case (.rgba64, _):
            return PlaneShape(width: width, height: height, bytesPerTexel: 8)
        }
    }

    /// Bytes of one tightly packed image.
    public func byteCount(width: Int, height: Int) -> Int {
        (0..<planeCount).reduce(0) { total, plane in
            let shape = planeShape(plane, width: width, height: height)
            return total + shape.rowBytes * shape.height
        }
    }

    public var description: String { rawValue }
}
