/// How a picture is placed in an area of another shape (a window, a device's fixed frame size).
public enum FrameScaling: String, Sendable, CaseIterable {
    /// The whole picture, as large as fits, centred; black bars fill the rest (letterbox).
    case fit
    /// The area filled, the picture's overflow cut off, centred.
    case fill
    /// The picture stretched to the area, whatever its shape.
    case stretch

    /// The rectangle (from the bottom left, in pixels) that shows a `frame`-sized picture in a
    /// `window`-sized area; it reaches past the area with `.fill`.
    public func viewport(frame: (width: Int, height: Int), window: (width: Int, height: Int))
        -> (x: Int, y: Int, width: Int, height: Int) {
        guard frame.width > 0, frame.height > 0, window.width > 0, window.height > 0 else { return (0, 0, 0, 0) }
        if self == .stretch { return (0, 0, window.width, window.height) }
        let scaleX = Double(window.width) / Double(frame.width)
        let scaleY = Double(window.height) / Double(frame.height)
        let scale = self == .fit ? min(scaleX, scaleY) : max(scaleX, scaleY)
        let width = Int((Double(frame.width) * scale).rounded())
        let height = Int((Double(frame.height) * scale).rounded())
        return ((window.width - width) / 2, (window.height - height) / 2, width, height)
    }
}
