import ELImage

/// Where the planes of an uncompressed V4L2 frame lie in its buffer (single-planar API): each
/// plane follows the previous one, luma rows `bytesperline` apart and chroma rows at the stride
/// the V4L2 format defines from it.
package struct FrameLayout: Equatable {
    package let format: PixelFormat
    package let planes: [PixelBuffer.Plane]
    /// Bytes from the start of the buffer to the end of the last plane's last row.
    package let byteCount: Int

    package init?(fourCC: FourCC, width: Int, height: Int, bytesPerLine: Int) {
        guard let format = fourCC.pixelFormat, width > 0, height > 0 else { return nil }
        let lumaRow = format.planeShape(0, width: width, height: height).rowBytes
        let stride = max(bytesPerLine, lumaRow)
        var planes = [PixelBuffer.Plane(offset: 0, bytesPerRow: stride)]
        var offset = stride * height
        for index in 1..<format.planeCount {
            let shape = format.planeShape(index, width: width, height: height)
            // NV12/NV21 and P010: chroma rows as long as luma rows; planar 4:2:x: half the luma stride.
            let interleaved = format.planeCount == 2
            let chromaStride = interleaved ? max(stride, shape.rowBytes) : max(shape.rowBytes, stride / 2)
            planes.append(PixelBuffer.Plane(offset: offset, bytesPerRow: chromaStride))
            offset += chromaStride * shape.height
        }
        let last = planes.count - 1
        let lastShape = format.planeShape(last, width: width, height: height)
        self.format = format
        self.planes = planes
        self.byteCount = planes[last].offset + planes[last].bytesPerRow * (lastShape.height - 1) + lastShape.rowBytes
    }

    /// Copies `picture` (this layout's format and size) plane by plane to where this layout puts
    /// the planes in `destination`: one copy a plane when the strides agree, else row by row.
    /// Rows that would fall outside either buffer are left out.
    package func copy(_ picture: PixelBuffer, into destination: UnsafeMutableRawBufferPointer) {
        picture.data.withUnsafeBytes { source in
            func copyBytes(_ count: Int, from origin: Int, to target: Int) {
                guard origin + count <= source.count, target + count <= destination.count else { return }
                UnsafeMutableRawBufferPointer(rebasing: destination[target..<(target + count)])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: source[origin..<(origin + count)]))
            }
            for (index, plane) in planes.enumerated() where index < picture.planes.count {
                let from = picture.planes[index]
                let shape = format.planeShape(index, width: picture.width, height: picture.height)
                if from.bytesPerRow == plane.bytesPerRow {
                    copyBytes(from.bytesPerRow * (shape.height - 1) + shape.rowBytes, from: from.offset, to: plane.offset)
                } else {
                    for row in 0..<shape.height {
                        copyBytes(shape.rowBytes, from: from.offset + row * from.bytesPerRow, to: plane.offset + row * plane.bytesPerRow)
                    }
                }
            }
        }
    }
}
