extension RenderContext {
    /// Uploads the two chroma planes of a planar Y'CbCr buffer (planes 1 and 2) into one RG8
    /// texture, the samples interleaved in plane order, so that the conversion shader fetches both
    /// chroma components with one texel read instead of two (four reads per pixel for bilinear
    /// chroma instead of eight: llvmpipe's cost is per fetch). 16-bit samples go in pairs of bytes
    /// (an RGBA8 texture: Cb low, Cb high, Cr low, Cr high).
    func uploadInterleavedChroma(of buffer: PixelBuffer, into texture: TextureFrame) throws {
        let shape = buffer.shape(ofPlane: 1)
        let (first, second) = (buffer.planes[1], buffer.planes[2])
        let sampleBytes = buffer.format.bytesPerSample
        let rowBytes = shape.width * 2 * sampleBytes
        var interleaved = [UInt8](repeating: 0, count: rowBytes * shape.height)
        buffer.data.withUnsafeBytes { source in
            interleaved.withUnsafeMutableBytes { target in
                guard let source = source.baseAddress?.assumingMemoryBound(to: UInt8.self),
                      let target = target.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
                for y in 0..<shape.height {
                    let a = source + first.offset + y * first.bytesPerRow
                    let b = source + second.offset + y * second.bytesPerRow
                    let row = target + y * rowBytes
                    if sampleBytes == 1 {
                        for x in 0..<shape.width {
                            row[2 * x] = a[x]
                            row[2 * x + 1] = b[x]
                        }
                    } else {
                        for x in 0..<shape.width {
                            row[4 * x] = a[2 * x]
                            row[4 * x + 1] = a[2 * x + 1]
                            row[4 * x + 2] = b[2 * x]
                            row[4 * x + 3] = b[2 * x + 1]
                        }
                    }
                }
            }
        }
        try interleaved.withUnsafeBytes { try upload($0, bytesPerRow: rowBytes, into: texture) }
    }
}
