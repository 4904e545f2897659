/// An image in CPU memory: one byte buffer holding every plane at its offset and stride, with the
/// colour space and presentation time of the picture.
///
/// Readers (Y4M, raw files, cameras) fill one buffer per frame; `RawDataInput` uploads it.
public struct PixelBuffer: Sendable {
    /// Where a plane starts in `data` and the distance between its rows.
    public struct Plane: Sendable, Equatable {
        public var offset: Int
        public var bytesPerRow: Int
        public init(offset: Int, bytesPerRow: Int) {
            self.offset = offset
            self.bytesPerRow = bytesPerRow
        }
    }

    public let format: PixelFormat
    public let width: Int
    public let height: Int
    /// The bytes of every plane. Replaced only through `withUnsafeMutableData`, so it always
    /// covers the planes it was validated against.
    public internal(set) var data: [UInt8]
    public let planes: [Plane]
    public var timestamp: MediaTime
    /// The picture's number in its source's stream (`TextureFrame.sequenceNumber`); set by the
    /// source that made it and kept when the picture is read back.
    public var sequenceNumber = 0
    public var colorSpace: ColorSpace
    /// Where chroma samples sit relative to luma (4:2:0 and 4:2:2 only).
    public var chromaLocation: ChromaLocation

    /// Wraps `data` as an image; `planes` defaults to tightly packed planes one after another.
    /// - Throws: `ELImageError.invalidInput` for an empty size, a stride shorter than a row, or
    ///   `data` too short for the planes.
    public init(format: PixelFormat, width: Int, height: Int, data: [UInt8], planes: [Plane]? = nil,
                timestamp: MediaTime = .zero, colorSpace: ColorSpace = .bt709,
                chromaLocation: ChromaLocation = .left) throws {
        guard width > 0, height > 0 else {
            throw ELImageError.invalidInput(what: "image size \(width)x\(height) is empty",
                                            hint: "width and height must be at least 1")
        }
        let layout = planes ?? Self.packedPlanes(format: format, width: width, height: height)
        guard layout.count == format.planeCount else {
            throw ELImageError.invalidInput(what: "\(format) has \(format.planeCount) planes, \(layout.count) were described",
                                            hint: "give one Plane per plane of the format")
        }
        for (index, plane) in layout.enumerated() {
            let shape = format.planeShape(index, width: width, height: height)
            guard plane.bytesPerRow >= shape.rowBytes else {
                throw ELImageError.invalidInput(
                    what: "plane \(index) of a \(width)x\(height) \(format) image has stride \(plane.bytesPerRow), shorter than its \(shape.rowBytes)-byte rows",
                    hint: "pass the real stride, at least \(shape.rowBytes)")
            }
            let end = plane.offset + plane.bytesPerRow * (shape.height - 1) + shape.rowBytes
            guard plane.offset >= 0, end <= data.count else {
                throw ELImageError.invalidInput(
                    what: "plane \(index) of a \(width)x\(height) \(format) image needs bytes up to \(end), the buffer has \(data.count)",
                    hint: "check the size, format, offsets and strides")
            }
        }
        self.format = format
        self.width = width
        self.height = height
        self.data = data
        self.planes = layout
        self.timestamp = timestamp
        self.colorSpace = colorSpace
        self.chromaLocation = chromaLocation
    }

    /// A zero-filled, tightly packed image.
    public init(format: PixelFormat, width: Int, height: Int, timestamp: MediaTime = .zero,
                colorSpace: ColorSpace = .bt709, chromaLocation: ChromaLocation = .left) throws {
        try self.init(format: format, width: width, height: height,
                      data: [UInt8](repeating: 0, count: max(0, format.byteCount(width: max(0, width), height: max(0, height)))),
                      timestamp: timestamp, colorSpace: colorSpace, chromaLocation: chromaLocation)
    }

    /// Lets `body` change the bytes in place (their count cannot change).
    public mutating func withUnsafeMutableData<Result>(
        _ body: (UnsafeMutableRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        try data.withUnsafeMutableBytes(body)
    }

    /// Tightly packed planes, one after another (the layout of ffmpeg's raw files and Y4M frames).
    public static func packedPlanes(format: PixelFormat, width: Int, height: Int) -> [Plane] {
        var offset = 0
        return (0..<format.planeCount).map { index in
            let shape = format.planeShape(index, width: width, height: height)
            defer { offset += shape.rowBytes * shape.height }
            return Plane(offset: offset, bytesPerRow: shape.rowBytes)
        }
    }

    /// The shape of plane `index`.
    public func shape(ofPlane index: Int) -> PixelFormat.PlaneShape {
        format.planeShape(index, width: width, height: height)
    }
}

/// Where chroma samples of subsampled formats sit relative to the luma grid.
public enum ChromaLocation: String, Sendable, CaseIterable {
    /// Horizontally co-sited with the left luma sample, vertically between rows (MPEG-2, H.264 default).
    case left
    /// Centred between luma samples in both directions (JPEG, MPEG-1).
    case center
    /// Co-sited with the top-left luma sample (BT.2020, DV PAL).
    case topLeft
}
