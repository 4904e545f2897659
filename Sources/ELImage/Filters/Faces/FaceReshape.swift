/// Face reshape from landmarks: larger eyes and a slimmer lower face, as smooth local warps
/// (`Shaders/face_reshape.fsh`), for up to eight faces a frame.
///
/// ```swift
/// let reshape = FaceReshape(slimming: 0.5, eyeEnlargement: 0.5)
/// let faces = try DetectorOutput(detector: try FaceLandmarkDetector()) { found in   // ELImageDetection
///     reshape.faces = found.facePoints
/// }
/// camera --> faces
/// camera --> reshape --> encoder
/// ```
///
/// The warps are sized by each face's eye distance D: a bulge of radius 0.42 D around each eye
/// (the middle magnified up to 1.33× at `eyeEnlargement` 1), and on each side of the lower face,
/// 1.0 D out from the face's middle line half way between the nose and the mouth, a local
/// translation of radius 0.75 D moving the cheek in by up to 0.14 D (at `slimming` 1). Everything
/// outside these discs is copied exactly. With no faces (or both strengths 0) the frame itself
/// passes on, with no draw; a frame without faces is counted in `statistics.framesWithoutFaces`.
public final class FaceReshape: FrameFilter {
    /// The frames seen so far: reshaped, and passed unchanged for want of a face.
    public struct Statistics: Sendable, Equatable {
        public var framesReshaped = 0
        public var framesWithoutFaces = 0
    }

    /// The most faces reshaped in one frame (the shader's arrays); more are left as they are.
    public static let maximumFaces = 8
    /// The warps' sizes in eye distances (see the type's summary).
    static let eyeRadius: Float = 0.42, largestEyeStrength: Float = 0.25
    static let cheekOffset: Float = 1.0, cheekRadius: Float = 0.75, largestCheekMove: Float = 0.14

    public let inputSlots = InputSlots()
    public let outputs = OutputTargets()
    private struct ReshapeState {
        var slimming: Float
        var eyeEnlargement: Float
        var faces: [FacePoints] = []
        var statistics = Statistics()
    }
    private let state: Locked<ReshapeState>

    /// - Parameters:
    ///   - slimming: 0...1, how much the lower face is narrowed (0: not at all).
    ///   - eyeEnlargement: 0...1, how much the eyes are enlarged (0: not at all).
    public init(slimming: Float = 0.5, eyeEnlargement: Float = 0.5) {
        state = Locked(ReshapeState(slimming: Self.unit(slimming), eyeEnlargement: Self.unit(eyeEnlargement)))
    }

    /// 0...1; NaN is 0.
    public var slimming: Float {
        get { state.withLock { $0.slimming } }
        set { state.withLock { $0.slimming = Self.unit(newValue) } }
    }

    /// 0...1; NaN is 0.
    public var eyeEnlargement: Float {
        get { state.withLock { $0.eyeEnlargement } }
        set { state.withLock { $0.eyeEnlargement = Self.unit(newValue) } }
    }

    /// The faces to reshape in the next frames (set it from a landmark detector's handler, from
    /// any thread); faces with a value that is not finite are left out.
    public var faces: [FacePoints] {
        get { state.withLock { $0.faces } }
        set { state.withLock { $0.faces = Array(newValue.filter(\.isFinite).prefix(Self.maximumFaces)) } }
    }

    public var statistics: Statistics { state.withLock { $0.statistics } }

    private static func unit(_ value: Float) -> Float { value.isNaN ? 0 : min(max(value, 0), 1) }

    public func prepare(in context: isolated RenderContext) throws {
        _ = try context.program(named: "face_reshape", fragment: EmbeddedShaders.faceReshapeFsh)
    }

    public func render(_ frame: TextureFrame, in context: isolated RenderContext) throws -> TextureFrame {
        let (faces, slimming, enlargement) = state.withLock { state in
            if state.faces.isEmpty { state.statistics.framesWithoutFaces += 1 } else { state.statistics.framesReshaped += 1 }
            return (state.faces, state.slimming, state.eyeEnlargement)
        }
        guard !faces.isEmpty, slimming > 0 || enlargement > 0 else { return frame }  // nothing moves
        let size = SIMD2(Float(frame.width), Float(frame.height))
        let warps = faces.map { Self.warp(for: $0, in: size, slimming: slimming, eyeEnlargement: enlargement) }
        let output = try context.makeFrame(width: frame.width, height: frame.height, like: frame)
        let program = try context.program(named: "face_reshape", fragment: EmbeddedShaders.faceReshapeFsh)
        try context.draw(program, into: output, inputs: [frame]) { program in
            program.set(.int(Int32(warps.count)), for: "faceCount")
            program.set(.vec4Array(warps.map { SIMD4(lowHalf: $0.leftEye, highHalf: $0.rightEye) }), for: "eyes")
            program.set(.vec4Array(warps.map { SIMD4(lowHalf: $0.leftCheek, highHalf: $0.rightCheek) }), for: "cheeks")
            program.set(.vec4Array(warps.map { SIMD4(lowHalf: $0.leftMove, highHalf: $0.rightMove) }), for: "cheekMoves")
            program.set(.vec4Array(warps.map { SIMD4($0.eyeRadius, $0.eyeStrength, $0.cheekRadius, 0) }), for: "shapes")
        }
        return output
    }

    /// One face's warps in pixels of a `size` frame.
    struct Warp: Equatable {
        var leftEye, rightEye: SIMD2<Float>
        var eyeRadius, eyeStrength: Float
        var leftCheek, rightCheek, leftMove, rightMove: SIMD2<Float>
        var cheekRadius: Float
    }

    static func warp(for face: FacePoints, in size: SIMD2<Float>, slimming: Float, eyeEnlargement: Float) -> Warp {
        let axes = face.axes(in: size), distance = axes.eyeDistance
        // The cheeks' level is half way between the nose and the mouth, on the face's middle line.
        let level = (((face.nose * size - axes.eyesMiddle) * axes.down).sum() / axes.mouthDistance + 1) / 2
        let onMiddleLine = axes.point(across: 0, down: level)
        let offset = cheekOffset * distance * axes.across
        let move = largestCheekMove * slimming * distance * axes.across
        return Warp(leftEye: face.leftEye * size, rightEye: face.rightEye * size, eyeRadius: eyeRadius * distance,
                    eyeStrength: largestEyeStrength * eyeEnlargement,
                    leftCheek: onMiddleLine - offset, rightCheek: onMiddleLine + offset,
                    leftMove: move, rightMove: -move, cheekRadius: cheekRadius * distance)
    }
}
