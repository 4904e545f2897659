/// Face reshape from landmarks: larger eyes and a slimmer lower face, as smooth local warps
/// (`Shaders/face_reshape.fsh`), for up to eight faces a frame.
///
/// ```swift
/// let reshape = FaceReshape(slimming: 0.5, eyeEnlargement: 0.5)
/// let faces = try DetectorOutput(detector: try FaceLandmarkDetector()) { found in   // ELImageDetection
///     reshape.faces = found.faces.compactMap { $0.landmarks?.reshapeFace(frameWidth: found.frameWidth, frameHeight: found.frameHeight) }
/// }
/// camera --> faces
/// camera --> reshape --> encoder
/// ```
///
/// The warps are sized by each face's eye distance D: a bulge of radius 0.42 D around each eye
/// (the middle magnified up to 1.33× at `eyeEnlargement` 1), and on each side of the lower face,
/// 1.0 D out from the face's middle line half way between the nose and the mouth, a local
/// translation of radius 0.75 D moving the cheek in by up to 0.14 D (at `slimming` 1). Everything
/// outside these discs is copied exactly. With no faces the frame passes unchanged (one copy),
/// counted in `statistics.framesWithoutFaces`.
public final class FaceReshape: SinglePassFilter {
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

    public let pass = ShaderPass(name: "face_reshape", fragmentShader: EmbeddedShaders.faceReshapeFsh)
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

    public func uniforms(forInput input: TextureFrame, outputSize: (width: Int, height: Int)) -> [String: UniformValue] {
        let (faces, slimming, enlargement) = state.withLock { state in
            if state.faces.isEmpty { state.statistics.framesWithoutFaces += 1 } else { state.statistics.framesReshaped += 1 }
            return (state.faces, state.slimming, state.eyeEnlargement)
        }
        let size = SIMD2(Float(input.width), Float(input.height))
        var eyes: [SIMD4<Float>] = [], eyeShape: [SIMD4<Float>] = []
        var cheeks: [SIMD4<Float>] = [], moves: [SIMD4<Float>] = [], cheekRadius: [SIMD4<Float>] = []
        for face in faces {
            let warp = Self.warp(for: face, in: size, slimming: slimming, eyeEnlargement: enlargement)
            eyes.append(SIMD4(lowHalf: warp.leftEye, highHalf: warp.rightEye))
            eyeShape.append(SIMD4(warp.eyeRadius, warp.eyeStrength, 0, 0))
            cheeks.append(SIMD4(lowHalf: warp.leftCheek, highHalf: warp.rightCheek))
            moves.append(SIMD4(lowHalf: warp.leftMove, highHalf: warp.rightMove))
            cheekRadius.append(SIMD4(warp.cheekRadius, 0, 0, 0))
        }
        var uniforms: [String: UniformValue] = ["faceCount": .int(Int32(faces.count))]
        if !faces.isEmpty {
            uniforms["eyes"] = .vec4Array(eyes)
            uniforms["eyeShape"] = .vec4Array(eyeShape)
            uniforms["cheeks"] = .vec4Array(cheeks)
            uniforms["cheekMoves"] = .vec4Array(moves)
            uniforms["cheekRadius"] = .vec4Array(cheekRadius)
        }
        return uniforms
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
