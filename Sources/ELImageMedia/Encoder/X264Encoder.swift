import CX264
import ELImage
import Foundation

/// One encoded access unit (a frame) as x264 returned it: Annex-B NAL units with start codes.
struct EncodedPacket {
    var data: [UInt8]
    /// Presentation and decoding time in the stream's ticks; `dts` may be negative with B-frames.
    var pts: Int64
    var dts: Int64
    var isKeyframe: Bool
}

/// A libx264 encoder for I420 pictures of one size. Not thread-safe: the encoder thread owns it.
final class X264Encoder {
    let width: Int
    let height: Int
    /// Ticks per second of `pts`/`dts`.
    let timescale: Int32
    /// The layout frames come in: I420, or I420 10-bit for a 10-bit stream.
    let format: PixelFormat
    private let handle: OpaquePointer
    private var picture = x264_picture_t()
    private var output = x264_picture_t()

    /// Opens x264 for `width` x `height` I420 pictures with `settings`, tagging the VUI with
    /// `colorSpace` and the planes' `chromaLocation` (`chroma_sample_loc_type`). `keyframeInterval`: the longest distance between keyframes in frames, `nil`
    /// for x264's default. `repeatHeaders`: SPS/PPS before every keyframe (Annex-B files);
    /// otherwise they come once from `headers()` (MP4's avcC). `constantRate`: the stream states
    /// `settings.frameRate` as its fixed rate in the VUI timing (raw Annex-B files, which have no
    /// timestamps of their own); otherwise the VUI counts ticks of `timescale` and frames keep
    /// their own timestamps (MP4).
    /// - Throws: `ELImageError.invalidInput` for settings x264 refuses, with x264's own message.
    init(width: Int, height: Int, settings: EncoderSettings, colorSpace: ColorSpace,
         chromaLocation: ChromaLocation, timescale: Int32,
         keyframeInterval: Int?, repeatHeaders: Bool, constantRate: Bool = false) throws {
        self.width = width
        self.height = height
        self.timescale = timescale
        // I420 needs an even size: said here, before x264 refuses it (and leaks on that path).
        guard width >= 2, height >= 2, width % 2 == 0, height % 2 == 0 else {
            throw ELImageError.invalidInput(
                what: "H.264 in 4:2:0 needs an even width and height, and the frames are \(width)x\(height)",
                hint: "crop or scale the picture to an even size first (e.g. the crop filter)")
        }
        var param = try Self.parameters(settings: settings)
        defer { x264_param_cleanup(&param) }  // the strings x264 allocated for it; the encoder has a copy
        param.i_width = Int32(width)
        param.i_height = Int32(height)
        format = settings.pixelFormat
        param.i_csp = Self.colorSpaceFlags(format)
        param.i_bitdepth = Int32(settings.bitDepth)
        param.i_threads = Int32(settings.threads)
        param.i_fps_num = UInt32(settings.frameRate.numerator)
        param.i_fps_den = UInt32(settings.frameRate.denominator)
        if constantRate {
            // VUI timing: num_units_in_tick = den, time_scale = 2 × num, fixed_frame_rate_flag.
            param.i_timebase_num = UInt32(settings.frameRate.denominator)
            param.i_timebase_den = UInt32(settings.frameRate.numerator)
            param.b_vfr_input = 0
        } else {
            param.i_timebase_num = 1
            param.i_timebase_den = UInt32(timescale)
            param.b_vfr_input = 1
        }
        if let keyframeInterval {  // else x264's default, as FFmpeg's: 250, and scene cuts
            param.i_keyint_max = Int32(keyframeInterval)
            param.i_keyint_min = Int32(max(1, min(keyframeInterval / 10, keyframeInterval)))
        }
        if let bFrames = settings.bFrames { param.i_bframe = Int32(bFrames) }
        param.b_repeat_headers = repeatHeaders ? 1 : 0
        param.b_annexb = 1
        switch settings.rateControl {
        case .constantQuality where settings.isLossless:
            // Lossless is quantiser 0. x264's CRF 0 is that at 8 bits only: at 10 its scale starts 12
            // lower, and CRF 0 would lose up to 9 levels a sample.
            param.rc.i_rc_method = X264_RC_CQP
            param.rc.i_qp_constant = 0
        case let .constantQuality(crf):
            param.rc.i_rc_method = X264_RC_CRF
            param.rc.f_rf_constant = Float(crf)
        case let .bitrate(rate, maximum, buffer):
            param.rc.i_rc_method = X264_RC_ABR
            param.rc.i_bitrate = Int32(rate)
            if let maximum { param.rc.i_vbv_max_bitrate = Int32(maximum) }
            if let buffer { param.rc.i_vbv_buffer_size = Int32(buffer) }
            else if let maximum { param.rc.i_vbv_buffer_size = Int32(maximum) }  // one second of buffer
        }
        let tags = ColorTags(colorSpace, chromaLocation: chromaLocation)
        param.vui.b_fullrange = colorSpace.range == .full ? 1 : 0
        param.vui.i_colorprim = tags.primaries
        param.vui.i_transfer = tags.transfer
        param.vui.i_colmatrix = tags.matrix
        param.vui.i_chroma_loc = tags.chromaSampleLocation
        if let hdr = colorSpace.hdr { Self.describe(hdr, in: &param) }
        if let level = settings.level, let idc = EncoderSettings.levelIDC(level) { param.i_level_idc = idc }

        // x264 prints its own errors on standard error (a C va_list callback cannot be written
        // in Swift); warnings are silenced.
        param.i_log_level = X264_LOG_ERROR

        guard x264_param_apply_profile(&param, settings.effectiveProfile.rawValue) == 0 else {
            throw ELImageError.invalidInput(
                what: "x264 cannot apply profile \(settings.effectiveProfile.rawValue) to these settings",
                hint: "choose another profile, or leave out what this one forbids (B-frames in baseline)")
        }
        guard let handle = elimage_x264_encoder_open(&param) else {
            throw ELImageError.invalidInput(
                what: "x264 cannot open an encoder for \(width)x\(height) with these settings (its message is on standard error)",
                hint: "check the size (even width and height for 4:2:0), level, bitrate and VBV settings")
        }
        self.handle = handle
        x264_picture_init(&picture)
        x264_picture_init(&output)
    }

    deinit {
        x264_encoder_close(handle)
    }

    /// Checks that x264 knows the preset and tune of `settings`.
    static func validate(settings: EncoderSettings) throws {
        var param = try parameters(settings: settings)
        x264_param_cleanup(&param)
    }

    /// The default preset/tune parameters; validates the names. Free with `x264_param_cleanup`.
    static func parameters(settings: EncoderSettings) throws -> x264_param_t {
        var param = x264_param_t()
        guard x264_param_default_preset(&param, settings.preset.rawValue, settings.tune) == 0 else {
            throw ELImageError.invalidInput(
                what: "x264 does not know the tune '\(settings.tune ?? "")'",
                hint: "use film, animation, grain, stillimage, psnr, ssim, fastdecode or zerolatency")
        }
        return param
    }

    /// SPS and PPS, Annex-B (start codes), for the container's codec configuration.
    func headers() throws -> [UInt8] {
        var nals: UnsafeMutablePointer<x264_nal_t>?
        var count: Int32 = 0
        let size = x264_encoder_headers(handle, &nals, &count)
        guard size > 0, let nals, count > 0, let start = nals[0].p_payload else {
            throw ELImageError.invalidState(node: "VideoEncoder", reason: "x264 gave no stream headers")
        }
        return Array(UnsafeBufferPointer(start: start, count: Int(size)))
    }

    /// Sets x264's mastering display and content light level SEI messages from `hdr` (sent with
    /// every keyframe).
    static func describe(_ hdr: HDRMetadata, in param: inout x264_param_t) {
        if let display = hdr.masteringDisplay {
            func chromaticity(_ value: Double) -> Int32 { Int32(clamping: Int((value * 50000).rounded())) }
            param.mastering_display.b_mastering_display = 1
            param.mastering_display.i_red_x = chromaticity(display.red.x)
            param.mastering_display.i_red_y = chromaticity(display.red.y)
            param.mastering_display.i_green_x = chromaticity(display.green.x)
            param.mastering_display.i_green_y = chromaticity(display.green.y)
            param.mastering_display.i_blue_x = chromaticity(display.blue.x)
            param.mastering_display.i_blue_y = chromaticity(display.blue.y)
            param.mastering_display.i_white_x = chromaticity(display.white.x)
            param.mastering_display.i_white_y = chromaticity(display.white.y)
            param.mastering_display.i_display_max = Int64((display.maximumLuminance * 10000).rounded())
            param.mastering_display.i_display_min = Int64((display.minimumLuminance * 10000).rounded())
        }
        if hdr.maximumContentLightLevel != nil || hdr.maximumFrameAverageLightLevel != nil {
            param.content_light_level.b_cll = 1
            param.content_light_level.i_max_cll = Int32(clamping: hdr.maximumContentLightLevel ?? 0)
            param.content_light_level.i_max_fall = Int32(clamping: hdr.maximumFrameAverageLightLevel ?? 0)
        }
    }

    /// x264's `i_csp` for frames of `format` (I420, or I420 in 16-bit words).
    static func colorSpaceFlags(_ format: PixelFormat) -> Int32 {
        format == .i420p10 ? X264_CSP_I420 | X264_CSP_HIGH_DEPTH : X264_CSP_I420
    }

    /// Encodes `buffer` (I420, or I420 10-bit at 10 bits, of this size) at `pts`; `keyframe` makes
    /// it an IDR picture (a segment's first). Returns the packet x264 output, if any (it holds
    /// frames back for lookahead and B-frames).
    func encode(_ buffer: inout PixelBuffer, pts: Int64, frameNumber: Int, keyframe: Bool = false) throws -> EncodedPacket? {
        guard buffer.format == format, buffer.width == width, buffer.height == height else {
            throw ELImageError.invalidInput(
                what: "frame \(frameNumber) is \(buffer.width)x\(buffer.height) \(buffer.format), the recording is \(width)x\(height) \(format)",
                hint: "keep the picture size constant during a recording, or stop and start a new one")
        }
        let planes = buffer.planes
        return try buffer.withUnsafeMutableData { data -> EncodedPacket? in
            guard let base = data.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
            picture.img.i_csp = Self.colorSpaceFlags(format)
            picture.img.i_plane = 3
            picture.img.i_stride = (Int32(planes[0].bytesPerRow), Int32(planes[1].bytesPerRow), Int32(planes[2].bytesPerRow), 0)
            picture.img.plane = (base + planes[0].offset, base + planes[1].offset, base + planes[2].offset, nil)
            picture.i_pts = pts
            picture.i_type = keyframe ? 1 : 0  // X264_TYPE_IDR : X264_TYPE_AUTO
            defer { picture.img.plane = (nil, nil, nil, nil) }
            return try call(input: &picture, frameNumber: frameNumber)
        }
    }

    /// Drains the next frame x264 held back; nil when none is left. (A call without a picture
    /// may give nothing while frames are still in flight in x264's threads: it calls again.)
    func flush(frameNumber: Int) throws -> EncodedPacket? {
        while x264_encoder_delayed_frames(handle) > 0 {
            if let packet = try call(input: nil, frameNumber: frameNumber) { return packet }
        }
        return nil
    }

    /// Frames x264 still holds.
    var delayedFrames: Int { Int(x264_encoder_delayed_frames(handle)) }

    private func call(input: UnsafeMutablePointer<x264_picture_t>?, frameNumber: Int) throws -> EncodedPacket? {
        var nals: UnsafeMutablePointer<x264_nal_t>?
        var count: Int32 = 0
        let size = x264_encoder_encode(handle, &nals, &count, input, &output)
        guard size >= 0 else {
            throw ELImageError.invalidState(node: "VideoEncoder",
                                            reason: "x264 failed to encode frame \(frameNumber) (code \(size); its message is on standard error)")
        }
        guard size > 0, let nals, count > 0, let start = nals[0].p_payload else { return nil }
        // x264 guarantees the payloads of one call are contiguous.
        return EncodedPacket(data: Array(UnsafeBufferPointer(start: start, count: Int(size))),
                             pts: output.i_pts, dts: output.i_dts, isKeyframe: output.b_keyframe != 0)
    }
}

/// H.273 codes for the VUI and the container.
struct ColorTags {
    let matrix: Int32
    let primaries: Int32
    let transfer: Int32
    let fullRange: Bool

    /// H.264's `chroma_sample_loc_type` (Table E-1) for 4:2:0 chroma; FFmpeg's `AVChromaLocation`
    /// is this code + 1.
    let chromaSampleLocation: Int32

    init(_ colorSpace: ColorSpace, chromaLocation: ChromaLocation) {
        switch colorSpace.matrix {
        case .bt601: matrix = 6  // SMPTE 170M (BT.601 525); 5 (BT.470BG) has the same coefficients
        case .bt709: matrix = 1
        case .bt2020: matrix = 9  // non-constant luminance
        }
        primaries = Int32(colorSpace.primaries.rawValue)
        transfer = Int32(colorSpace.transfer.rawValue)
        fullRange = colorSpace.range == .full
        chromaSampleLocation = switch chromaLocation {
        case .left: 0
        case .center: 1
        case .topLeft: 2
        }
    }
}
