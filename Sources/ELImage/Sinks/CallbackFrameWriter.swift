/// Hands each frame read back to a closure, on the readback worker thread (the writer of
/// `RawDataOutput` and `YUVDataOutput`). The buffer is reused for the next frame unless the
/// closure keeps it (then the closure's copy is its own).
final class CallbackFrameWriter: FrameWriter {
    private let handler: @Sendable (PixelBuffer) -> Void

    init(_ handler: @escaping @Sendable (PixelBuffer) -> Void) {
        self.handler = handler
    }

    func write(_ buffer: inout PixelBuffer, time: Int64, frame number: Int) throws -> FrameWriteVerdict {
        handler(buffer)
        return .more
    }
}
