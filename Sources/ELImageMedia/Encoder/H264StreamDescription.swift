import CFFmpeg

/// What a container says of an H.264 stream from x264: its size, colour tags and chroma siting,
/// and its SPS/PPS (Annex B) as extradata. The MP4 muxer and the live streams describe theirs so.
struct H264StreamDescription {
    let width: Int
    let height: Int
    let tags: ColorTags
    /// SPS and PPS, Annex B.
    let headers: [UInt8]

    /// Fills `parameters` (a new stream's); false when the extradata could not be allocated.
    func fill(_ parameters: UnsafeMutablePointer<AVCodecParameters>) -> Bool {
        parameters.pointee.codec_type = AVMEDIA_TYPE_VIDEO
        parameters.pointee.codec_id = AV_CODEC_ID_H264
        parameters.pointee.width = Int32(width)
        parameters.pointee.height = Int32(height)
        parameters.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        parameters.pointee.color_range = tags.fullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
        parameters.pointee.color_primaries = AVColorPrimaries(rawValue: UInt32(tags.primaries))
        parameters.pointee.color_trc = AVColorTransferCharacteristic(rawValue: UInt32(tags.transfer))
        parameters.pointee.color_space = AVColorSpace(rawValue: UInt32(tags.matrix))
        parameters.pointee.chroma_location = AVChromaLocation(rawValue: UInt32(tags.chromaSampleLocation + 1))
        parameters.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        let padding = Int(AV_INPUT_BUFFER_PADDING_SIZE)
        guard let extradata = av_mallocz(headers.count + padding)?.assumingMemoryBound(to: UInt8.self) else { return false }
        headers.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { extradata.update(from: base, count: headers.count) }
        }
        parameters.pointee.extradata = extradata
        parameters.pointee.extradata_size = Int32(headers.count)
        return true
    }
}
