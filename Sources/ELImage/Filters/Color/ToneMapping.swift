import Foundation
import Synchronization

/// HDR to SDR: pictures whose transfer is PQ or HLG become BT.709 SDR (primaries, matrix and
/// transfer; the range kept) by BT.2390's EETF (`Shaders/tone_mapping.fsh`): display light
/// compressed above a knee so that the source's peak lands on SDR white, colours kept, the BT.2020
/// gamut clipped to BT.709. Frames that are already SDR pass through untouched (counted in
/// `statistics`), drawing nothing: a fused line goes through the filter for them
/// (`PassesOnUnchanged`).
///
/// The source's peak is its MaxCLL, else its mastering display's peak (`ColorSpace.hdr`), else
/// `fallbackSourcePeak` (1000 cd/m², what most HDR10 grades and HLG assume).
public final class ToneMapping: FrameFilter, PassesOnUnchanged, Sendable {
    /// What the filter did so far.
    public struct Statistics: Sendable, Equatable {
        /// Frames mapped from HDR to SDR.
        public var mapped = 0
        /// Frames passed through because they were already SDR.
        public var passedThrough = 0

        public init(mapped: Int = 0, passedThrough: Int = 0) {
            self.mapped = mapped
            self.passedThrough = passedThrough
        }
    }

    public let inputSlots = InputSlots()
    public let outputs = OutputTargets()
    /// The luminance of SDR white, cd/m²: 203 by default (BT.2408's HDR reference white, as
    /// libplacebo takes it), so HDR graded to it keeps its brightness.
    public let targetPeak: Double
    /// The source peak used when a frame's metadata gives none, cd/m².
    public let fallbackSourcePeak: Double
    private let counters = Mutex(Statistics())

    /// - Parameters:
    ///   - targetPeak: cd/m² that SDR white stands for (above 0).
    ///   - fallbackSourcePeak: cd/m² of the source's brightest pixels when its metadata is silent.
    public init(targetPeak: Double = 203, fallbackSourcePeak: Double = 1000) {
        self.targetPeak = targetPeak > 0 ? targetPeak : 203
        self.fallbackSourcePeak = fallbackSourcePeak > 0 ? fallbackSourcePeak : 1000
    }

    /// Frames mapped and passed through so far.
    public var statistics: Statistics { counters.withLock { $0 } }

    /// The SDR colour space a mapped frame of `source` carries: BT.709 throughout, the range kept.
    public static func outputColorSpace(for source: ColorSpace) -> ColorSpace {
        ColorSpace(matrix: .bt709, range: source.range, primaries: .bt709, transfer: .bt709)
    }

    /// BT.2390's constants for a source peak and a target peak (cd/m²): the source's peak in PQ,
    /// the target's as a fraction of it, and the knee (1.5 maximum - 0.5).
    static func curve(sourcePeak: Double, targetPeak: Double) -> (sourcePeakPQ: Double, maximum: Double, knee: Double) {
        func pq(_ light: Double) -> Double {
            let (m1, m2, c1, c2, c3) = (0.1593017578125, 78.84375, 0.8359375, 18.8515625, 18.6875)
            let p = pow(max(light, 0) / 10000, m1)
            return pow((c1 + c2 * p) / (1 + c3 * p), m2)
        }
        let source = pq(sourcePeak), maximum = pq(targetPeak) / source
        return (source, maximum, 1.5 * maximum - 0.5)
    }

    public func passesOnUnchanged(width: Int, height: Int, colorSpace: ColorSpace) -> Bool {
        !colorSpace.isHDR
    }

    public func passedOnUnchanged() {
        counters.withLock { $0.passedThrough += 1 }
    }

    public func prepare(in context: isolated RenderContext) throws {
        _ = try context.program(named: "tone_mapping", fragment: EmbeddedShaders.toneMappingFsh)
    }

    public func render(_ frame: TextureFrame, in context: isolated RenderContext) throws -> TextureFrame {
        let source = frame.colorSpace
        guard source.isHDR else {
            counters.withLock { $0.passedThrough += 1 }
            return frame
        }
        let peak = source.hdr?.peakLuminance ?? fallbackSourcePeak
        let output = try context.makeFrame(width: frame.width, height: frame.height, format: frame.workingFormat,
                                           timestamp: frame.timestamp, sequenceNumber: frame.sequenceNumber,
                                           colorSpace: Self.outputColorSpace(for: source),
                                           chromaLocation: frame.chromaLocation)
        let program = try context.program(named: "tone_mapping", fragment: EmbeddedShaders.toneMappingFsh)
        let sourcePrimaries = source.primaries == .unspecified ? ColorPrimaries.bt2020 : source.primaries
        let curve = Self.curve(sourcePeak: source.transfer == .hlg ? 1000 : peak, targetPeak: targetPeak)
        try context.draw(program, into: output, inputs: [frame]) { program in
            program.set(.int(source.transfer == .hlg ? 1 : 0), for: "hlg")
            program.set(.float(Float(curve.sourcePeakPQ)), for: "sourcePeakPQ")
            program.set(.float(Float(curve.maximum)), for: "maximumLevel")
            program.set(.float(Float(curve.knee)), for: "kneeLevel")
            program.set(.float(Float(targetPeak)), for: "targetPeak")
            program.set(.float(1000), for: "hlgPeak")
            program.set(.mat3(PrimariesConversion.matrix(from: sourcePrimaries, to: .bt709)), for: "toOutputPrimaries")
            program.set(.vec3(PrimariesConversion.lumaWeights(sourcePrimaries)), for: "sourceLumaWeights")
        }
        counters.withLock { $0.mapped += 1 }
        return output
    }
}
