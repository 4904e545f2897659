import Foundation

/// A picture on its way from the render thread to a worker thread: its planes packed on the GPU
/// and the fence after the commands that packed them.
package struct PendingReadback: Sendable {
    package let planes: PackedPlanes
    package let fence: GLFence

    /// Waits for the fence, then reads the planes into `spare` when it has their format and size
    /// (else into a new buffer) and returns it. Call on the render thread or a thread where a
    /// `SharedContext` of the frame's render context is current.
    package func read(reusing spare: consuming PixelBuffer?, frame number: Int, file: String) throws -> PixelBuffer {
        var waits = 0
        while !fence.wait(timeoutNanoseconds: 1_000_000_000) {
            waits += 1
            if waits >= 20 {
                throw ELImageError.malformedMedia(file: file, frame: number,
                                                  reason: "the GPU did not finish converting the frame within 20 s (fence timeout)")
            }
        }
        // Taken out of `spare`, so that it has one owner while the planes are read into it (a
        // second reference would make the read copy its bytes first).
        var target: PixelBuffer
        if let existing = spare.take(), existing.format == planes.format, existing.width == planes.width,
           existing.height == planes.height {
            target = existing
        } else {
            target = try PixelBuffer(format: planes.format, width: planes.width, height: planes.height)
        }
        try planes.read(into: &target)
        return target
    }
}

extension RenderContext {
    /// Packs `frame` (an RGBA frame or a fused line's picture) into the planes of `format` on the
    /// GPU and inserts a fence after it, for a worker thread to read back without blocking the
    /// render thread.
    package func prepareReadback(of frame: any PackablePicture, as format: PixelFormat, colorSpace: ColorSpace,
                         chromaLocation: ChromaLocation,
                         chromaDownsampling: ChromaDownsampling = .matched) throws -> PendingReadback {
        var planes = try frame.packed(as: format, colorSpace: colorSpace, chromaLocation: chromaLocation,
                                      chromaDownsampling: chromaDownsampling, in: self)
        planes.sequenceNumber = frame.sequenceNumber
        return PendingReadback(planes: planes, fence: try insertFence())
    }
}
