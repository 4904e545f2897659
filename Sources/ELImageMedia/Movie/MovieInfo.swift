import ELImage

/// What a movie file says about its video stream (and its sound), read when it is opened.
public struct MovieInfo: Sendable, Equatable {
    /// The file.
    public var path: String
    /// Picture width in pixels.
    public var width: Int
    /// Picture height in pixels.
    public var height: Int
    /// The codec's short name, e.g. "h264", "vp9", "ffv1".
    public var codecName: String
    /// The container's short name(s), e.g. "mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm", "h264".
    public var containerName: String
    /// The average frame rate, when the file states one.
    public var frameRate: Y4MHeader.Ratio?
    /// FFmpeg's guess of the frame rate (`av_guess_frame_rate`: the stream's base rate, or the
    /// average when that is much lower), the rate `ffmpeg` gives an output by default; what
    /// constant-rate outputs (Y4M, raw H.264) use when no rate is asked for.
    public var guessedFrameRate: Y4MHeader.Ratio?
    /// How long the video lasts, from the stream (or the container) when stated.
    public var duration: MediaTime?
    /// The number of frames the container states (MP4 does, Matroska and raw streams do not).
    public var frameCount: Int?
    /// The timestamp of the first frame, in the stream's time base.
    public var startTime: MediaTime
    /// The colour space from the stream's tags, untagged fields filled with the usual defaults
    /// (see `ColorSpace.defaultForVideo(height:)`, limited range). Frames carry their own tags.
    public var colorSpace: ColorSpace
    /// Where the chroma samples sit (left when untagged, as in H.264).
    public var chromaLocation: ChromaLocation
    /// The container's display matrix, when it has one (phones write one for portrait video).
    public var displayMatrix: DisplayMatrix? = nil
    /// The first audio track, nil when the file has no sound.
    public var sound: Sound? = nil
    /// Bits a sample of the decoded pictures (8, 10, 12, ...), from the stream's pixel format; 8
    /// when it does not say. Pictures of 4:2:0 or RGB with more than 8 bits are decoded at 10 or
    /// 16 bits (`FrameConverter`) and worked on in half floats.
    public var bitsPerSample: Int = 8
    /// How the picture is to be turned to be seen upright, from the display matrix: `.up` when
    /// there is none, or when it turns by an angle that is not a multiple of 90°. `MovieInput`
    /// applies it unless told not to (`MovieInput.Options.autorotate`).
    public var orientation: Orientation { displayMatrix?.orientation ?? .up }

    /// The picture size as stored (before `orientation`).
    public var size: (width: Int, height: Int) { (width, height) }
}
