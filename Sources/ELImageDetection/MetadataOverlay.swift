import ELImage
import Foundation

/// A filter that draws the latest metadata into the video: face boxes in green, code outlines in
/// yellow. Feed it from a `DetectorOutput` (`overlay.show(metadata)` in the handler, from any
/// thread); it keeps drawing the last boxes on the frames in between, until new ones come.
///
/// The shapes are drawn on the CPU into a transparent picture at the frame's size (at most 1280
/// pixels wide) when the metadata changes, uploaded once, and alpha-blended over every frame.
public final class MetadataOverlay: SinglePassFilter {
    private struct State {
        var shown: [String: Metadata] = [:]
        var version = 0
        var drawnVersion = -1
        var texture: TextureFrame?
    }

    /// Line width in the frame's pixels.
    public let lineWidth: Int
    private let state = Locked(State())
    /// The core's alpha blend (`BlendFilter(mode: .alpha)`), with the overlay picture as its top layer.
    public let pass = ShaderPass(name: "blend_alpha", fragmentShader: ShaderLibrary.source(named: "blend_alpha.fsh") ?? "")
    public let outputs = OutputTargets()

    public static let faceColour = SIMD4<UInt8>(40, 230, 60, 255)
    public static let codeColour = SIMD4<UInt8>(255, 210, 0, 255)
    /// Where motion was found, while an event lasts.
    public static let motionColour = SIMD4<UInt8>(240, 40, 40, 255)

    public init(lineWidth: Int = 3) {
        self.lineWidth = max(1, lineWidth)
    }

    public func uniforms(forInput input: TextureFrame, outputSize: (width: Int, height: Int)) -> [String: UniformValue] {
        ["opacity": .float(1)]
    }

    /// Shows `metadata` from now on, in place of the earlier metadata of the same detector (so
    /// several detectors can feed one overlay).
    public func show(_ metadata: Metadata) {
        state.withLock { state in
            state.shown[metadata.detector] = metadata
            state.version += 1
        }
    }

    /// Removes every shape.
    public func clear() {
        state.withLock { state in
            state.shown = [:]
            state.version += 1
        }
    }

    public func additionalTextures(in context: isolated RenderContext) throws -> [SamplerTexture] {
        let pending = state.withLock { state -> (shown: [Metadata], version: Int)? in
            state.drawnVersion == state.version && state.texture != nil
                ? nil : (state.shown.keys.sorted().compactMap { state.shown[$0] }, state.version)
        }
        if let pending {
            let canvas = Self.draw(pending.shown, lineWidth: lineWidth)
            let buffer = try PixelBuffer(format: .rgba, width: canvas.width, height: canvas.height, data: canvas.pixels,
                                         colorSpace: .srgb)
            let texture = try context.makeFrame(from: buffer)
            state.withLock { state in
                state.texture = texture
                state.drawnVersion = pending.version
            }
        }
        guard let texture = state.withLock({ $0.texture }) else { return [] }
        return [SamplerTexture(sampler: "inputImageTexture2", frame: texture)]
    }

    /// The shapes of `shown` on a transparent canvas at the frames' size (scaled down to 1280 wide).
    static func draw(_ shown: [Metadata], lineWidth: Int) -> OverlayCanvas {
        guard let first = shown.first, first.frameWidth > 0, first.frameHeight > 0 else {
            return OverlayCanvas(width: 4, height: 4)
        }
        let scale = min(1, 1280 / Double(first.frameWidth))
        let width = max(1, Int(Double(first.frameWidth) * scale)), height = max(1, Int(Double(first.frameHeight) * scale))
        var canvas = OverlayCanvas(width: width, height: height)
        let thickness = max(1, Int((Double(lineWidth) * scale).rounded()))
        func point(_ normalized: CGPoint) -> CGPoint {
            CGPoint(x: normalized.x * Double(width), y: normalized.y * Double(height))
        }
        for metadata in shown {
            for face in metadata.faces {
                let box = face.bounds
                canvas.polygon([CGPoint(x: box.minX, y: box.minY), CGPoint(x: box.maxX, y: box.minY),
                                CGPoint(x: box.maxX, y: box.maxY), CGPoint(x: box.minX, y: box.maxY)].map(point),
                               thickness: thickness, colour: faceColour)
                // Landmarks as small crosses, in the frame's pixels.
                for landmark in face.landmarks?.points ?? [] {
                    let centre = CGPoint(x: landmark.x * scale, y: landmark.y * scale)
                    let arm = Double(2 * thickness + 1)
                    canvas.line(from: CGPoint(x: centre.x - arm, y: centre.y), to: CGPoint(x: centre.x + arm, y: centre.y),
                                thickness: thickness, colour: faceColour)
                    canvas.line(from: CGPoint(x: centre.x, y: centre.y - arm), to: CGPoint(x: centre.x, y: centre.y + arm),
                                thickness: thickness, colour: faceColour)
                }
            }
            for code in metadata.codes {
                canvas.polygon(code.points.map(point), thickness: thickness, colour: codeColour)
            }
            if let motion = metadata.motion, motion.event != .end, motion.area > 0 {
                let box = motion.bounds
                canvas.polygon([CGPoint(x: box.minX, y: box.minY), CGPoint(x: box.maxX, y: box.minY),
                                CGPoint(x: box.maxX, y: box.maxY), CGPoint(x: box.minX, y: box.maxY)].map(point),
                               thickness: thickness, colour: motionColour)
            }
        }
        return canvas
    }
}
