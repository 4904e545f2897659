import ELImage

/// One encoded audio packet (an AAC or Opus frame) with its times in ticks of 1/`timescale` s on
/// the source's clock: the same clock as the video frames' `MediaTime` stamps (a movie's own
/// timeline for a file input, the monotonic clock for live capture), so audio and video share one
/// timeline from the source to the file.
public struct AudioPacket: Sendable {
    /// The encoded bytes, as the codec made them.
    public var data: [UInt8]
    /// Presentation time, in ticks.
    public var pts: Int64
    /// Decoding time, in ticks (equal to `pts` for AAC and Opus).
    public var dts: Int64
    /// How long the packet plays, in ticks.
    public var duration: Int64
    /// Ticks per second (usually the sample rate).
    public var timescale: Int32

    public init(data: [UInt8], pts: Int64, dts: Int64, duration: Int64, timescale: Int32) {
        self.data = data
        self.pts = pts
        self.dts = dts
        self.duration = duration
        self.timescale = timescale
    }

    /// When the packet starts, as a `MediaTime` on the source's clock.
    public var time: MediaTime { MediaTime(value: pts, timescale: timescale) }
}
