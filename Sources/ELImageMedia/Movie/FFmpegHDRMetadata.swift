import CFFmpeg
import ELImage

/// HDR metadata as FFmpeg gives it (a stream's side data from the container, a frame's from the
/// codec's SEI messages), turned into ELImage's `HDRMetadata`; and back, for the muxer.
enum FFmpegHDRMetadata {
    /// The mastering display and light levels of `stream`'s side data; nil when it has neither.
    static func of(stream: UnsafeMutablePointer<AVStream>) -> HDRMetadata? {
        var size: Int = 0
        let display = av_stream_get_side_data(stream, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, &size).flatMap { data in
            size >= MemoryLayout<AVMasteringDisplayMetadata>.size
                ? masteringDisplay(UnsafeRawPointer(data).load(as: AVMasteringDisplayMetadata.self)) : nil
        }
        let light = av_stream_get_side_data(stream, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, &size).flatMap { data in
            size >= MemoryLayout<AVContentLightMetadata>.size
                ? UnsafeRawPointer(data).load(as: AVContentLightMetadata.self) : nil
        }
        return combine(display, light)
    }

    /// The mastering display and light levels of `frame`'s side data; nil when it has neither.
    static func of(frame: UnsafePointer<AVFrame>) -> HDRMetadata? {
        let mutableFrame = UnsafeMutablePointer(mutating: frame)
        let display = av_frame_get_side_data(mutableFrame, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA).flatMap { side in
            side.pointee.size >= MemoryLayout<AVMasteringDisplayMetadata>.size
                ? masteringDisplay(UnsafeRawPointer(side.pointee.data).load(as: AVMasteringDisplayMetadata.self)) : nil
        }
        let light = av_frame_get_side_data(mutableFrame, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL).flatMap { side in
            side.pointee.size >= MemoryLayout<AVContentLightMetadata>.size
                ? UnsafeRawPointer(side.pointee.data).load(as: AVContentLightMetadata.self) : nil
        }
        return combine(display, light)
    }

    private static func combine(_ display: HDRMetadata.MasteringDisplay?, _ light: AVContentLightMetadata?) -> HDRMetadata? {
        guard display != nil || light != nil else { return nil }
        return HDRMetadata(masteringDisplay: display,
                           maximumContentLightLevel: light.map { Int($0.MaxCLL) },
                           maximumFrameAverageLightLevel: light.map { Int($0.MaxFALL) })
    }

    private static func masteringDisplay(_ metadata: AVMasteringDisplayMetadata) -> HDRMetadata.MasteringDisplay? {
        guard metadata.has_primaries != 0 || metadata.has_luminance != 0 else { return nil }
        func value(_ rational: AVRational) -> Double { rational.den == 0 ? 0 : Double(rational.num) / Double(rational.den) }
        let primaries = metadata.display_primaries
        return HDRMetadata.MasteringDisplay(
            red: [value(primaries.0.0), value(primaries.0.1)], green: [value(primaries.1.0), value(primaries.1.1)],
            blue: [value(primaries.2.0), value(primaries.2.1)],
            white: [value(metadata.white_point.0), value(metadata.white_point.1)],
            minimumLuminance: value(metadata.min_luminance), maximumLuminance: value(metadata.max_luminance))
    }

    /// Adds `hdr` to `stream`'s side data, where the muxer writes it (the `mdcv` and `clli` boxes).
    static func attach(_ hdr: HDRMetadata, to stream: UnsafeMutablePointer<AVStream>) {
        if let display = hdr.masteringDisplay,
           let data = av_stream_new_side_data(stream, AV_PKT_DATA_MASTERING_DISPLAY_METADATA,
                                              MemoryLayout<AVMasteringDisplayMetadata>.size) {
            func rational(_ value: Double, _ denominator: Int32) -> AVRational {
                AVRational(num: Int32((value * Double(denominator)).rounded()), den: denominator)
            }
            var metadata = AVMasteringDisplayMetadata()
            metadata.display_primaries = ((rational(display.red.x, 50000), rational(display.red.y, 50000)),
                                          (rational(display.green.x, 50000), rational(display.green.y, 50000)),
                                          (rational(display.blue.x, 50000), rational(display.blue.y, 50000)))
            metadata.white_point = (rational(display.white.x, 50000), rational(display.white.y, 50000))
            metadata.min_luminance = rational(display.minimumLuminance, 10000)
            metadata.max_luminance = rational(display.maximumLuminance, 10000)
            metadata.has_primaries = 1
            metadata.has_luminance = 1
            UnsafeMutableRawPointer(data).storeBytes(of: metadata, as: AVMasteringDisplayMetadata.self)
        }
        if hdr.maximumContentLightLevel != nil || hdr.maximumFrameAverageLightLevel != nil,
           let data = av_stream_new_side_data(stream, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, MemoryLayout<AVContentLightMetadata>.size) {
            let light = AVContentLightMetadata(MaxCLL: UInt32(max(0, hdr.maximumContentLightLevel ?? 0)),
                                               MaxFALL: UInt32(max(0, hdr.maximumFrameAverageLightLevel ?? 0)))
            UnsafeMutableRawPointer(data).storeBytes(of: light, as: AVContentLightMetadata.self)
        }
    }
}
