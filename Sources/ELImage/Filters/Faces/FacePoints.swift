/// A face's five landmarks in 0...1 of the frame's width and height from the top-left corner:
/// what a landmark detector reports (`Metadata.facePoints` in ELImageDetection), given to
/// `FaceReshape.faces` and `Beauty.faces`.
public struct FacePoints: Sendable, Equatable {
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

    /// The face's own axes in pixels of a `size` frame (see `FaceAxes`).
    func axes(in size: SIMD2<Float>) -> FaceAxes {
        FaceAxes(self, in: size)
    }
}

/// A face's frame of reference in pixels, from its landmarks: the origin between the eyes,
/// `across` the unit vector from the left eye to the right, `down` its perpendicular towards the
/// mouth; lengths in eye distances (`eyeDistance`) across and in eye-to-mouth distances
/// (`mouthDistance`) down, so that a face seen from above or below keeps its proportions.
struct FaceAxes: Equatable {
    let eyesMiddle: SIMD2<Float>
    let across: SIMD2<Float>
    let eyeDistance: Float
    let mouthDistance: Float

    init(_ face: FacePoints, in size: SIMD2<Float>) {
        let leftEye = face.leftEye * size, rightEye = face.rightEye * size
        let vector = rightEye - leftEye
        eyeDistance = max(1e-3, (vector * vector).sum().squareRoot())
        across = vector / eyeDistance
        eyesMiddle = (leftEye + rightEye) * 0.5
        let mouth = (face.mouthLeft + face.mouthRight) * 0.5 * size
        let down = SIMD2(-across.y, across.x)
        mouthDistance = max(0.5 * eyeDistance, ((mouth - eyesMiddle) * down).sum())
    }

    var down: SIMD2<Float> { SIMD2(-across.y, across.x) }

    /// A point given in the face's units (eye distances across, eye-to-mouth distances down).
    func point(across u: Float, down v: Float) -> SIMD2<Float> {
        eyesMiddle + u * eyeDistance * across + v * mouthDistance * down
    }

    /// A pixel position in the face's units: (across, down).
    func coordinates(of point: SIMD2<Float>) -> SIMD2<Float> {
        let offset = point - eyesMiddle
        return SIMD2((offset * across).sum() / eyeDistance, (offset * down).sum() / mouthDistance)
    }
}
