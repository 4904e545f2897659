import ELImage

/// How a frame is placed in a window of another shape: `.fit` (letterbox, the default), `.fill`
/// (cropped) or `.stretch`.
public typealias PreviewScaling = FrameScaling
