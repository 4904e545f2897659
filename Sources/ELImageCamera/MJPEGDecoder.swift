import CTurboJPEG
import ELImage

/// Decodes Motion-JPEG frames with libturbojpeg into planar Y'CbCr at the JPEG's own subsampling
/// (4:2:0 → I420, 4:2:2 → I422, 4:4:4 → I444, gray → GRAY8), ready for `makeFrame(from:)`: no
/// colour conversion on the CPU. JPEGs in other layouts (4:4:0, 4:1:1, RGB, CMYK) are decoded
/// to RGBA.
///
/// One decoder belongs to one thread (a camera's producer thread): a libturbojpeg handle is not shared.
/// Package access: the fuzzers (`ELImageFuzzing`) drive it too.
package final class MJPEGDecoder {
    private let handle: tjhandle

    /// - Throws: `ELImageError.invalidState` when libturbojpeg cannot make a decompressor.
    package init() throws {
        guard let handle = tjInitDecompress() else {
            throw ELImageError.invalidState(node: "MJPEGDecoder", reason: "libturbojpeg could not create a decompressor (out of memory?)")
        }
        self.handle = handle
    }

    deinit { tjDestroy(handle) }

    /// Decodes one JPEG.
    /// - Parameters:
    ///   - jpeg: the compressed frame.
    ///   - expectedSize: the size negotiated with the device; a frame of another size is refused
    ///     before anything is allocated for it.
    ///   - colorSpace: the frame's colour space (JFIF: BT.601 full range unless the driver says otherwise).
    ///   - source: the device path and frame number, for errors.
    /// - Throws: `ELImageError.malformedMedia` when the data is not a decodable JPEG, is cut short
    ///   (no end-of-image marker), or is not of the negotiated size. Warnings (e.g. a few corrupt
    ///   bytes inside the data) are tolerated: the picture is still used.
    package func decode(_ jpeg: UnsafeRawBufferPointer, expectedSize: (width: Int, height: Int), timestamp: MediaTime,
                colorSpace: ColorSpace, source: (path: String, frame: Int)) throws -> PixelBuffer {
        guard let base = jpeg.baseAddress?.assumingMemoryBound(to: UInt8.self), !jpeg.isEmpty else {
            throw ELImageError.malformedMedia(file: source.path, frame: source.frame, reason: "the MJPEG frame is empty")
        }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, jpegColorSpace: Int32 = 0
        guard tjDecompressHeader3(handle, base, UInt(jpeg.count), &width, &height, &subsampling, &jpegColorSpace) == 0,
              width > 0, height > 0 else {
            throw failure(source, "the MJPEG frame has no readable JPEG header")
        }
        guard Int(width) == expectedSize.width, Int(height) == expectedSize.height else {
            throw ELImageError.malformedMedia(
                file: source.path, frame: source.frame,
                reason: "the MJPEG frame's header gives \(width)x\(height), not the \(expectedSize.width)x\(expectedSize.height) negotiated with the device; the frame is damaged")
        }
        guard Self.endsWithEndOfImage(jpeg) else {
            throw ELImageError.malformedMedia(
                file: source.path, frame: source.frame,
                reason: "the MJPEG frame of \(jpeg.count) bytes has no end-of-image marker: it is cut short, and would show grey where its data is missing")
        }
        let isYCbCr = jpegColorSpace == Int32(TJCS_YCbCr.rawValue) || jpegColorSpace == Int32(TJCS_GRAY.rawValue)
        let format: PixelFormat?
        switch subsampling {
        case Int32(TJSAMP_420.rawValue): format = .i420
        case Int32(TJSAMP_422.rawValue): format = .i422
        case Int32(TJSAMP_444.rawValue): format = .i444
        case Int32(TJSAMP_GRAY.rawValue): format = .gray8
        default: format = nil
        }
        if let format, isYCbCr {
            var buffer = try PixelBuffer(format: format, width: Int(width), height: Int(height), timestamp: timestamp,
                                         colorSpace: colorSpace, chromaLocation: .center)
            let planes = buffer.planes
            let result = buffer.withUnsafeMutableData { bytes -> Int32 in
                guard let start = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return -1 }
                var pointers: [UnsafeMutablePointer<UInt8>?] = planes.map { start + $0.offset }
                var strides = planes.map { Int32($0.bytesPerRow) }
                return tjDecompressToYUVPlanes(handle, base, UInt(jpeg.count), &pointers, width, &strides, height, 0)
            }
            try check(result, source)
            return buffer
        }
        var buffer = try PixelBuffer(format: .rgba, width: Int(width), height: Int(height), timestamp: timestamp,
                                     colorSpace: colorSpace)
        let result = buffer.withUnsafeMutableData { bytes -> Int32 in
            guard let start = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return -1 }
            return tjDecompress2(handle, base, UInt(jpeg.count), start, width, width * 4, height,
                                 Int32(TJPF_RGBA.rawValue), 0)
        }
        try check(result, source)
        return buffer
    }

    /// Whether `jpeg` ends with the end-of-image marker (FF D9), after the zero padding some
    /// devices add to fill their buffer.
    static func endsWithEndOfImage(_ jpeg: UnsafeRawBufferPointer) -> Bool {
        var end = jpeg.count
        while end > 0, jpeg[end - 1] == 0 { end -= 1 }
        return end >= 2 && jpeg[end - 2] == 0xFF && jpeg[end - 1] == 0xD9
    }

    private func check(_ result: Int32, _ source: (path: String, frame: Int)) throws {
        guard result != 0 else { return }
        if tjGetErrorCode(handle) == Int32(TJERR_WARNING.rawValue) { return }
        throw failure(source, "the MJPEG frame does not decode")
    }

    private func failure(_ source: (path: String, frame: Int), _ what: String) -> ELImageError {
        let detail = tjGetErrorStr2(handle).map { String(cString: $0) } ?? "unknown error"
        return .malformedMedia(file: source.path, frame: source.frame, reason: "\(what): \(detail)")
    }
}
