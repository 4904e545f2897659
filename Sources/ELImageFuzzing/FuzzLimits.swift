/// Caps that keep one fuzz input cheap, so that the fuzzer tries many inputs a second.
enum FuzzLimits {
    /// The most frames read from one input; enough to pass the first frame boundary twice.
    static let framesPerInput = 3
    /// The largest block FFmpeg may allocate while a movie input is read (`av_max_alloc`; FFmpeg's
    /// own default is 2 GiB). Debian 12's libavformat sizes a fragment's sample index from the
    /// count its `trun` box states, before reading it: a 1.7 KB file can ask for 2.8 GB, which
    /// crosses the fuzzer's memory limit inside FFmpeg. Capped, FFmpeg refuses the block and the
    /// fuzzer checks how `MovieDecoder` reports that instead. A 16384x16384 frame is 384 MiB in
    /// 8-bit 4:2:0, so no picture the decoder accepts is refused.
    static let ffmpegBlockBytes = 512 << 20
}
