import Foundation

/// The loudness of the sound just captured, per channel: the peak and the RMS of the last block
/// (about 20 ms), as linear amplitudes (1 = full scale), for a level meter.
public struct AudioLevels: Sendable, Equatable {
    /// The largest absolute sample of each channel.
    public var peak: [Float]
    /// The root mean square of each channel.
    public var rms: [Float]

    public init(peak: [Float] = [], rms: [Float] = []) {
        self.peak = peak
        self.rms = rms
    }

    /// The levels of interleaved float samples with `channels` channels.
    init(interleaved samples: UnsafeBufferPointer<Float>, channels: Int) {
        var peak = [Float](repeating: 0, count: channels), sum = [Double](repeating: 0, count: channels)
        let frames = channels > 0 ? samples.count / channels : 0
        for frame in 0..<frames {
            for channel in 0..<channels {
                let value = samples[frame * channels + channel]
                peak[channel] = max(peak[channel], abs(value))
                sum[channel] += Double(value * value)
            }
        }
        self.peak = peak
        rms = sum.map { frames > 0 ? Float(($0 / Double(frames)).squareRoot()) : 0 }
    }

    /// `amplitude` in dBFS (−∞ for silence).
    public static func decibels(_ amplitude: Float) -> Float { 20 * log10(amplitude) }
}
