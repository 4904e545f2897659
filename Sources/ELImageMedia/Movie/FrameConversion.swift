import CFFmpeg
import ELImage

/// Copies decoded `AVFrame`s into `PixelBuffer`s.
///
/// The layouts ELImage uploads directly (yuv420p, nv12, yuv422p, yuv444p, gray, yuyv, rgba, ...
/// the full-range `yuvj*` variants, and 10-bit yuv420p10le and p010le) are copied plane by plane.
/// Anything else is first converted by libswscale at the same size: 4:2:0 of more than 8 bits (12-bit
/// video) to yuv420p10le, RGB of more than 8 bits to rgba64le, and the rest (4:1:1, palettes, other RGB
/// orders, 10-bit 4:2:2 and 4:4:4) to the nearest 8-bit layout: planar Y'CbCr keeping its subsampling
/// where ELImage has it (4:4:4 otherwise), gray, or RGBA. The values keep their range; the colour tags
/// stay the frame's.
final class FrameConverter {
    private var scaler: OpaquePointer?
    private var converted: UnsafeMutablePointer<AVFrame>?

    deinit {
        sws_freeContext(scaler)
        av_frame_free(&converted)
    }

    /// The layout `format` is copied as, when ELImage has it.
    static func directFormat(_ format: AVPixelFormat) -> PixelFormat? {
        switch format {
        case AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUVJ420P: .i420
        case AV_PIX_FMT_NV12: .nv12
        case AV_PIX_FMT_NV21: .nv21
        case AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUVJ422P: .i422
        case AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUVJ444P: .i444
        case AV_PIX_FMT_GRAY8: .gray8
        case AV_PIX_FMT_YUYV422: .yuyv
        case AV_PIX_FMT_UYVY422: .uyvy
        case AV_PIX_FMT_RGB24: .rgb24
        case AV_PIX_FMT_RGBA: .rgba
        case AV_PIX_FMT_BGRA: .bgra
        case AV_PIX_FMT_YUV420P10LE: .i420p10
        case AV_PIX_FMT_P010LE: .p010
        case AV_PIX_FMT_RGBA64LE: .rgba64
        default: nil
        }
    }

    /// The layout libswscale converts `format` to.
    static func conversionTarget(for format: AVPixelFormat) -> (ffmpeg: AVPixelFormat, elimage: PixelFormat) {
        guard let descriptor = av_pix_fmt_desc_get(format) else { return (AV_PIX_FMT_RGBA, .rgba) }
        let flags = descriptor.pointee.flags
        let deep = descriptor.pointee.comp.0.depth > 8
        if flags & UInt64(AV_PIX_FMT_FLAG_PAL) != 0 { return (AV_PIX_FMT_RGBA, .rgba) }
        if flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0 {
            return deep ? (AV_PIX_FMT_RGBA64LE, .rgba64) : (AV_PIX_FMT_RGBA, .rgba)
        }
        if descriptor.pointee.nb_components < 3 { return (AV_PIX_FMT_GRAY8, .gray8) }
        switch (descriptor.pointee.log2_chroma_w, descriptor.pointee.log2_chroma_h) {
        case (1, 1) where deep: return (AV_PIX_FMT_YUV420P10LE, .i420p10)
        case (1, 1): return (AV_PIX_FMT_YUV420P, .i420)
        case (1, 0): return (AV_PIX_FMT_YUV422P, .i422)
        default: return (AV_PIX_FMT_YUV444P, .i444)
        }
    }

    /// The pixels of `frame` as a tightly packed buffer, with `timestamp`, `colorSpace` and
    /// `chromaLocation`. `describe` names the frame in errors.
    func pixelBuffer(from frame: UnsafePointer<AVFrame>, timestamp: MediaTime, colorSpace: ColorSpace,
                     chromaLocation: ChromaLocation, describe: () -> (file: String, frame: Int)) throws -> PixelBuffer {
        let sourceFormat = AVPixelFormat(rawValue: frame.pointee.format)
        let width = Int(frame.pointee.width), height = Int(frame.pointee.height)
        func fail(_ reason: String) -> ELImageError {
            let (file, number) = describe()
            return .malformedMedia(file: file, frame: number, reason: reason)
        }
        guard width > 0, height > 0 else { throw fail("the decoder returned an empty \(width)x\(height) picture") }
        let source: UnsafePointer<AVFrame>
        let format: PixelFormat
        if let direct = Self.directFormat(sourceFormat) {
            source = frame
            format = direct
        } else {
            let target = Self.conversionTarget(for: sourceFormat)
            source = UnsafePointer(try convert(frame, to: target.ffmpeg, fail: fail))
            format = target.elimage
        }
        let data = try Self.copyPlanes(of: source, format: format, width: width, height: height, fail: fail)
        return try PixelBuffer(format: format, width: width, height: height, data: data, timestamp: timestamp,
                               colorSpace: colorSpace, chromaLocation: chromaLocation)
    }

    /// Converts `frame` with libswscale into `converted`, reusing the scaler while the layout stays.
    private func convert(_ frame: UnsafePointer<AVFrame>, to target: AVPixelFormat,
                         fail: (String) -> ELImageError) throws -> UnsafeMutablePointer<AVFrame> {
        let width = frame.pointee.width, height = frame.pointee.height
        let sourceFormat = AVPixelFormat(rawValue: frame.pointee.format)
        let flags = SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT | SWS_FULL_CHR_H_INP
        scaler = sws_getCachedContext(scaler, width, height, sourceFormat, width, height, target, flags,
                                      nil, nil, nil)
        guard let scaler else {
            let name = av_get_pix_fmt_name(sourceFormat).map { String(cString: $0) } ?? "format \(sourceFormat.rawValue)"
            let targetName = av_get_pix_fmt_name(target).map { String(cString: $0) } ?? "format \(target.rawValue)"
            throw fail("libswscale cannot convert the decoder's \(name) pictures to \(targetName)")
        }
        if let existing = converted, existing.pointee.width != width || existing.pointee.height != height
            || existing.pointee.format != target.rawValue {
            av_frame_free(&converted)
        }
        if converted == nil {
            guard let fresh = av_frame_alloc() else { throw fail("out of memory for a converted picture") }
            fresh.pointee.width = width
            fresh.pointee.height = height
            fresh.pointee.format = target.rawValue
            converted = fresh
            let status = av_frame_get_buffer(fresh, 0)
            guard status >= 0 else {
                av_frame_free(&converted)
                throw fail("cannot allocate a converted picture: \(FFmpegError.text(status))")
            }
        }
        guard let output = converted else { throw fail("out of memory for a converted picture") }
        let status = sws_scale_frame(scaler, output, frame)
        guard status >= 0 else { throw fail("libswscale failed to convert the picture: \(FFmpegError.text(status))") }
        return output
    }

    /// Copies the planes of `frame` (laid out as `format`) into one tightly packed array.
    private static func copyPlanes(of frame: UnsafePointer<AVFrame>, format: PixelFormat, width: Int, height: Int,
                                   fail: (String) -> ELImageError) throws -> [UInt8] {
        let pointers = withUnsafeBytes(of: frame.pointee.data) { Array($0.bindMemory(to: UnsafeMutablePointer<UInt8>?.self)) }
        let strides = withUnsafeBytes(of: frame.pointee.linesize) { Array($0.bindMemory(to: Int32.self)) }
        let layout = PixelBuffer.packedPlanes(format: format, width: width, height: height)
        var data = [UInt8](repeating: 0, count: format.byteCount(width: width, height: height))
        try data.withUnsafeMutableBytes { destination in
            guard let base = destination.baseAddress else { return }
            for (index, plane) in layout.enumerated() {
                let shape = format.planeShape(index, width: width, height: height)
                guard index < pointers.count, let source = pointers[index] else {
                    throw fail("the decoder's \(format) picture has no plane \(index)")
                }
                let stride = Int(strides[index])
                for row in 0..<shape.height {
                    (base + plane.offset + row * shape.rowBytes)
                        .copyMemory(from: source + row * stride, byteCount: shape.rowBytes)
                }
            }
        }
        return data
    }
}
