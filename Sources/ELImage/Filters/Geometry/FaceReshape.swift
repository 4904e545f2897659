/// Face reshape from landmarks: larger eyes and a slimmer lower face, as smooth local warps
/// (`Shaders/face_reshape.fsh`), for up to eight faces a frame.
///
/// ```swift
/// let reshape = FaceReshape(slimming: 0.5, eyeEnlargement: 0.5)
/// let faces = try DetectorOutput(detector: try FaceLandmarkDetector()) { found in   // ELImageDetection
///     reshape.faces = found.reshapeFaces
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
    /// A face's five landmarks in 0...1 of the frame's width and height from the top-left corner.
    public struct Face: Sendable, Equatable {
        public var leftEye: SIMD2<Float>
        public var rightEye: SIMD2<Float>
        public var nose: SIMD2<Float>
        public var mouthLeft: SIMD2<Float>
        public var mouthRight: SIMD2<Float>

        public init(leftEye: SIMD2<Float>, rightEye: SIMD2<Float>, nose: SIMD2<Float>,
                    mouthLeft: SIMD2<Float>, mouthRight: SIMD2<Float>) {
            (self.leftEye, self.rightEye, self.nose, self.mouthLeft, self.mouthRight) = (leftEye, rightEye, nose, mouthLeft, mouthRight)
        }

        var isFinite: Bool {
            [leftEye, rightEye, nose, mouthLeft, mouthRight].allSatisfy { $0.x.isFinite && $0.y.isFinite }
        }
    }

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
    private struct State {
        var slimming: Float
        var eyeEnlargement: Float
        var faces: [Face] = []
        var statistics = Statistics()
    }
    private let state: Locked<State>

    /// - Parameters:
    ///   - slimming: 0...1, how much the lower face is narrowed (0: not at all).
    ///   - eyeEnlargement: 0...1, how much the eyes are enlarged (0: not at all).
    public init(slimming: Float = 0.5, eyeEnlargement: Float = 0.5) {
        state = Locked(State(slimming: Self.unit(slimming), eyeEnlargement: Self.unit(eyeEnlargement)))
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
    public var faces: [Face] {
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
        let output = try context.makeFrame(width: frame.width, height: frame.height, format: frame.workingFormat,
                                           timestamp: frame.timestamp, colorSpace: frame.colorSpace,
                                           chromaLocation: frame.chromaLocation)
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

    static func warp(for face: Face, in size: SIMD2<Float>, slimming: Float, eyeEnlargement: Float) -> Warp {
        let leftEye = face.leftEye * size, rightEye = face.rightEye * size
        let nose = face.nose * size, mouth = (face.mouthLeft + face.mouthRight) * 0.5 * size
        let across = rightEye - leftEye
        let distance = max(1e-3, (across * across).sum().squareRoot())
        let unitAcross = across / distance
        // The middle line of the face runs through the eyes' midpoint, across's perpendicular.
        let eyesMiddle = (leftEye + rightEye) * 0.5
        let level = (nose + mouth) * 0.5
        let along = ((level - eyesMiddle) * unitAcross).sum()
        let onMiddleLine = level - along * unitAcross  // the cheek level, on the middle line
        let offset = cheekOffset * distance * unitAcross
        let move = largestCheekMove * slimming * distance * unitAcross
        return Warp(leftEye: leftEye, rightEye: rightEye, eyeRadius: eyeRadius * distance,
                    eyeStrength: largestEyeStrength * eyeEnlargement,
                    leftCheek: onMiddleLine - offset, rightCheek: onMiddleLine + offset,
                    leftMove: move, rightMove: -move, cheekRadius: cheekRadius * distance)
    }
}
