import CX264

/// libx264 called directly, the way a hand-written C program would after the floor's readback:
/// CRF, the preset's defaults (threads auto), Annex-B output dropped. The floor of the record
/// pipeline is `FloorPipeline.run` then `encode` in sequence.
final class FloorX264 {
    private let handle: OpaquePointer
    private let width: Int, height: Int
    private var picture = x264_picture_t()
    private var output = x264_picture_t()
    private var frameNumber: Int64 = 0
    /// Bytes of encoded video so far (so the work cannot be optimised away, and as a sanity check).
    private(set) var encodedBytes = 0

    init(width: Int, height: Int, preset: String, crf: Float, framesPerSecond: Int) throws {
        var param = x264_param_t()
        guard x264_param_default_preset(&param, preset, nil) == 0 else {
            throw BenchmarkFailure("libx264 does not know the preset \(preset)")
        }
        defer { x264_param_cleanup(&param) }
        param.i_width = Int32(width)
        param.i_height = Int32(height)
        param.i_csp = X264_CSP_I420
        param.i_fps_num = UInt32(framesPerSecond)
        param.i_fps_den = 1
        param.i_keyint_max = Int32(framesPerSecond)
        param.rc.i_rc_method = X264_RC_CRF
        param.rc.f_rf_constant = crf
        param.b_annexb = 1
        param.b_repeat_headers = 1
        param.i_log_level = X264_LOG_WARNING
        guard let handle = elimage_x264_encoder_open(&param) else {
            throw BenchmarkFailure("libx264 could not open a \(width)x\(height) encoder")
        }
        self.handle = handle
        self.width = width
        self.height = height
        x264_picture_init(&picture)
        x264_picture_init(&output)
    }

    deinit { x264_encoder_close(handle) }

    /// Encodes one tightly packed I420 frame (x264 copies it during the call).
    func encode(_ i420: UnsafeMutableRawBufferPointer) {
        guard let base = i420.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        picture.img.i_csp = X264_CSP_I420
        picture.img.i_plane = 3
        picture.img.plane.0 = base
        picture.img.plane.1 = base + width * height
        picture.img.plane.2 = base + width * height * 5 / 4
        picture.img.i_stride.0 = Int32(width)
        picture.img.i_stride.1 = Int32(width / 2)
        picture.img.i_stride.2 = Int32(width / 2)
        picture.i_pts = frameNumber
        frameNumber += 1
        var nals: UnsafeMutablePointer<x264_nal_t>?
        var count: Int32 = 0
        let size = x264_encoder_encode(handle, &nals, &count, &picture, &output)
        encodedBytes += Int(max(0, size))
    }

    /// Encodes the frames x264 still holds (lookahead, threads).
    func flush() {
        var nals: UnsafeMutablePointer<x264_nal_t>?
        var count: Int32 = 0
        while x264_encoder_delayed_frames(handle) > 0 {
            let size = x264_encoder_encode(handle, &nals, &count, nil, &output)
            if size < 0 { return }
            encodedBytes += Int(size)
        }
    }
}

extension FloorPipeline {
    /// ms/frame of this floor followed by libx264 (`preset`, `crf`) in sequence over `frames`
    /// frames of `clip`, x264 flushed at the end; on the render thread.
    func msPerFrameWithX264(clip: SourceClip, frames: Int, preset: String, crf: Float) throws -> Double {
        let encoder = try FloorX264(width: width, height: height, preset: preset, crf: crf, framesPerSecond: 25)
        var result = [UInt8](repeating: 0, count: frameBytes)
        let start = ContinuousClock.now
        for index in 0..<frames {
            clip.frames[index % clip.frames.count].data.withUnsafeBytes { bytes in
                result.withUnsafeMutableBytes { output in
                    run(bytes, into: output)
                    encoder.encode(output)
                }
            }
        }
        encoder.flush()
        guard encoder.encodedBytes > 0 else { throw BenchmarkFailure("libx264 wrote nothing") }
        return elapsedMilliseconds(ContinuousClock.now - start) / Double(frames)
    }
}
