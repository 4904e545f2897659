/// A face's rectangle in a frame, in 0...1 of the frame's width and height from the top-left
/// corner: what a face detector reports, given to `Beauty.faceRegions` so that the skin colour is
/// learnt from the faces themselves.
public struct FaceRegion: Sendable, Equatable {
    /// The top-left corner and the size, each in 0...1 of the frame's width or height.
    public var x, y, width, height: Float

    public init(x: Float, y: Float, width: Float, height: Float) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }

    /// The region cut to the frame, or nil when nothing of it is left (or a value is not finite).
    var clippedToFrame: FaceRegion? {
        guard [x, y, width, height].allSatisfy(\.isFinite) else { return nil }
        let left = min(max(x, 0), 1), top = min(max(y, 0), 1)
        let right = min(max(x + width, 0), 1), bottom = min(max(y + height, 0), 1)
        guard right - left > 1e-3, bottom - top > 1e-3 else { return nil }
        return FaceRegion(x: left, y: top, width: right - left, height: bottom - top)
    }
}
