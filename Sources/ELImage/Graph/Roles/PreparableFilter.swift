/// A node whose GPU programs can be compiled before the first frame arrives.
///
/// Preparing turns shader errors into errors thrown at set-up time (`ELImageError.shaderCompile`
/// with the failing line) instead of failures reported through the context's error handler once
/// frames flow.
public protocol PreparableFilter: AnyObject {
    /// Compiles and links every program the node uses in `context`.
    func prepare(in context: isolated RenderContext) throws
}
