import ELImage

/// Checks, at the input's first frame, that every crop filter's rectangle lies (at least in part)
/// inside the picture it gets; otherwise fails with the rectangle and the frame size, and stops
/// the input. (A crop wholly outside would leave a 1x1 picture that the outputs reject in their
/// own words.) Sizes are followed through the filters: `scale` and `crop` change them.
final class CropCheck: ImageInput, FrameObserver {
    let inputSlots = InputSlots()
    private let filters: [FilterCatalog.Filter]
    private let inputName: String
    private let stop: @Sendable () -> Void
    private let checked = Locked(false)

    init(filters: [FilterCatalog.Filter], inputName: String, stop: @escaping @Sendable () -> Void) {
        self.filters = filters
        self.inputName = inputName
        self.stop = stop
    }

    func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        try observe(width: frame.width, height: frame.height, timestamp: frame.timestamp, in: context)
    }

    /// Hears of a picture without drawing it.
    func receive(_ picture: Picture, at index: Int, in context: isolated RenderContext) throws {
        try observe(width: picture.width, height: picture.height, timestamp: picture.timestamp, in: context)
    }

    func observe(width: Int, height: Int, timestamp: MediaTime, in context: isolated RenderContext) throws {
        guard !checked.withLock({ value in defer { value = true }; return value }) else { return }
        var size = (width: width, height: height)
        for (number, filter) in filters.enumerated() {
            if let crop = filter as? Crop {
                let region = crop.region
                guard region.x < size.width, region.y < size.height, region.x + region.width > 0,
                      region.y + region.height > 0 else {
                    stop()
                    throw ToolFailure("--filter crop (filter \(number + 1)): the rectangle at x=\(region.x), y=\(region.y) is outside the \(size.width)x\(size.height) frame of \(inputName); give x below \(size.width) and y below \(size.height)")
                }
                let kept = region.clamped(toWidth: size.width, height: size.height)
                size = (kept.width, kept.height)
            } else if let scale = filter as? Passthrough, let target = scale.outputSize {
                size = target
            }
        }
    }
}
