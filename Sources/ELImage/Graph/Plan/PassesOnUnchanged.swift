/// A filter that hands some pictures on as they came: a crop of the whole picture, a scale to the
/// picture's own size, tone mapping of a picture that is SDR already. For such a picture it draws
/// nothing (its targets get the input frame), and a fused line (`FusableLine`) goes through
/// it as if it were not there, telling it so (`passedOnUnchanged()`).
public protocol PassesOnUnchanged: ImageOutput, ImageInput {
    /// Whether a `width` x `height` picture in `colorSpace` comes out of the filter as it went in
    /// (asked per picture, so a change of the filter's settings counts from the next one).
    func passesOnUnchanged(width: Int, height: Int, colorSpace: ColorSpace) -> Bool
    /// A fused line took a picture through the filter without it (for its counts); the default
    /// does nothing.
    func passedOnUnchanged()
}

extension PassesOnUnchanged {
    public func passedOnUnchanged() {}
}
