/// A source that uploads CPU pixels (RGBA, BGRA or 8-bit gray, rows possibly padded) and pushes
/// them into the graph as RGBA frames.
///
/// ```swift
/// let input = RawDataInput()
/// input --> Grayscale() --> RawDataOutput { image in ... }
/// try await input.process(pixels, width: 641, height: 479, format: .bgra, timestamp: .zero, on: context)
/// ```
public final class RawDataInput: ImageOutput {
    public let outputs = OutputTargets()
    /// Whether Y'CbCr buffers may run through the graph as one fused pass (`ConversionRecipe`)
    /// where its shape allows; false always runs every node.
    public let fusesPasses: Bool
    /// Frames sent through the graph since the last `finish(in:)`.
    private let sent = Locked(0)

    /// - Parameter fusingPasses: let a straight line of colour filters into a Y'CbCr sink run as one
    ///   pass (default); false runs every node as its own pass (for comparisons).
    public init(fusingPasses: Bool = true) {
        fusesPasses = fusingPasses
    }

    /// Uploads one image and sends it through the graph; returns once every target has taken it.
    /// Its frame's sequence number is the count of frames sent before it since the last `finish(in:)`.
    ///
    /// - Parameters:
    ///   - pixels: the image, top row first.
    ///   - width: the width in pixels.
    ///   - height: the height in pixels.
    ///   - bytesPerRow: the stride between rows; `nil` means tightly packed rows.
    ///   - format: `.rgba`, `.bgra` or `.gray8`.
    ///   - timestamp: the frame's presentation time.
    ///   - context: the render context the graph runs in.
    /// - Throws: `ELImageError.invalidInput` for a zero or oversized dimension, a stride shorter than
    ///   a row, or a buffer too small for the image.
    public func process(
        _ pixels: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerRow: Int? = nil,
        format: PixelFormat, timestamp: MediaTime, in context: isolated RenderContext
    ) throws {
        guard [.rgba, .bgra, .gray8].contains(format) else {
            throw ELImageError.invalidInput(what: "\(format) is not a single-plane RGBA, BGRA or gray format",
                                            hint: "wrap planar or YUV pixels in a PixelBuffer and use process(_:in:)")
        }
        let pixelSize = format.planeShape(0, width: 1, height: 1).bytesPerTexel
        let stride = bytesPerRow ?? width * pixelSize
        try Self.validate(byteCount: pixels.count, width: width, height: height, bytesPerRow: stride,
                          format: format, maximumSize: context.info.maximumTextureSize)
        let number = sent.withLock { $0 }
        let uploaded = try context.makeFrame(width: width, height: height, format: format == .gray8 ? .r8 : .rgba8,
                                             timestamp: timestamp, sequenceNumber: number)
        try context.upload(pixels, bytesPerRow: stride, into: uploaded)
        switch format {
        case .rgba:
            deliver(uploaded, in: context)
        default:
            let shader = format == .bgra
                ? (name: "bgra_to_rgba", source: EmbeddedShaders.bgraToRgbaFsh)
                : (name: "gray_to_rgba", source: EmbeddedShaders.grayToRgbaFsh)
            let output = try context.makeFrame(width: width, height: height, like: uploaded)
            let program = try context.program(named: shader.name, fragment: shader.source)
            try context.draw(program, into: output, inputs: [uploaded])
            deliver(output, in: context)
        }
        sent.withLock { $0 += 1 }
    }

    /// Uploads a CPU image in any `PixelFormat` (Y'CbCr planes converted with its colour space),
    /// turned by `orientation`, and sends it through the graph as an RGBA frame with the buffer's
    /// time and sequence number.
    ///
    /// When the graph is a straight line of colour filters into a Y'CbCr `YUVDataOutput`, the
    /// conversion, the filters and the sink's packing run as one pass instead
    /// (`ConversionRecipe`); the sink gets what the separate passes would give it.
    public func process(_ buffer: PixelBuffer, orientation: Orientation = .up, in context: isolated RenderContext) throws {
        try deliver(buffer, orientation: orientation, fusing: fusesPasses, in: context)
        sent.withLock { $0 += 1 }
    }

    /// Hops to `context`'s render thread, uploads `buffer` and sends it through the graph.
    public func process(_ buffer: PixelBuffer, orientation: Orientation = .up, on context: RenderContext) async throws {
        try await context.perform { context in try self.process(buffer, orientation: orientation, in: context) }
    }

    /// Hops to `context`'s render thread, uploads one image and sends it through the graph.
    public func process(
        _ pixels: [UInt8], width: Int, height: Int, bytesPerRow: Int? = nil,
        format: PixelFormat, timestamp: MediaTime, on context: RenderContext
    ) async throws {
        try await context.perform { context in
            try pixels.withUnsafeBytes { bytes in
                try self.process(bytes, width: width, height: height, bytesPerRow: bytesPerRow,
                                 format: format, timestamp: timestamp, in: context)
            }
        }
    }

    /// Tells the targets that no more frames will come, then publishes the stream's end
    /// (`.sourceEnded`, with the frames sent since the last `finish`). The next frame starts a
    /// new stream.
    public func finish(in context: isolated RenderContext) {
        deliverEndOfStream(in: context)
        var statistics = SourceStatistics()
        statistics.produced = sent.withLock { count in
            defer { count = 0 }
            return count
        }
        statistics.delivered = statistics.produced
        context.publish(.sourceEnded(SourceEnd(node: NodeReference(self), statistics: statistics, failed: false)))
    }

    static func validate(byteCount: Int, width: Int, height: Int, bytesPerRow: Int,
                         format: PixelFormat, maximumSize: Int) throws {
        guard width > 0, height > 0 else {
            throw ELImageError.invalidInput(what: "image size \(width)x\(height) is empty",
                                            hint: "width and height must be at least 1")
        }
        guard width <= maximumSize, height <= maximumSize else {
            throw ELImageError.invalidInput(what: "image size \(width)x\(height) exceeds the GPU's limit of \(maximumSize)",
                                            hint: "scale the image down before uploading it")
        }
        let pixelSize = format.planeShape(0, width: 1, height: 1).bytesPerTexel
        let row = width * pixelSize
        guard bytesPerRow >= row else {
            throw ELImageError.invalidInput(
                what: "bytesPerRow \(bytesPerRow) is shorter than a \(width)-pixel \(format.rawValue) row (\(row) bytes)",
                hint: "pass the buffer's real stride, at least width * \(pixelSize)")
        }
        let needed = bytesPerRow * (height - 1) + row
        guard byteCount >= needed else {
            throw ELImageError.invalidInput(
                what: "pixel buffer has \(byteCount) bytes but a \(width)x\(height) \(format.rawValue) image with stride \(bytesPerRow) needs \(needed)",
                hint: "check the width, height, stride and format")
        }
    }
}
