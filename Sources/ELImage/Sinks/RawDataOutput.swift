
/// A sink that reads every frame back to the CPU as RGBA and hands it to a closure.
///
/// The closure runs on the render thread, so keep it short. The pixel buffer is reused for the
/// next frame unless the closure keeps the image, in which case it becomes the closure's own copy.
public final class RawDataOutput: ImageInput {
    public let inputSlots = InputSlots(count: 1)
    private let handler: @Sendable (RGBAImage) -> Void
    private let buffer = Locked<[UInt8]>([])

    public init(handler: @escaping @Sendable (RGBAImage) -> Void) {
        self.handler = handler
    }

    public func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        guard frame.format == .rgba8 else {
            throw ELImageError.invalidInput(what: "RawDataOutput got a \(frame.format) frame",
                                            hint: "connect it after a node that outputs RGBA")
        }
        var pixels = buffer.withLock { stored in
            defer { stored = [] }
            return stored
        }
        let count = frame.width * frame.height * 4
        if pixels.count != count { pixels = [UInt8](repeating: 0, count: count) }
        try pixels.withUnsafeMutableBytes { try context.readPixels(of: frame, into: $0) }
        var image = RGBAImage(width: frame.width, height: frame.height, pixels: pixels, timestamp: frame.timestamp)
        pixels = []
        handler(image)
        swap(&pixels, &image.pixels)
        buffer.withLock { $0 = pixels }
    }
}
