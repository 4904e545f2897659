extension RenderContext {
    /// Uploads the two chroma planes of a planar Y'CbCr buffer (planes 1 and 2) into one RGBA8
    /// texture, the samples interleaved in plane order, so that the conversion shader fetches both
    /// chroma components with one texel read instead of two (llvmpipe's cost is per fetch).
    /// 8-bit samples go in pairs of samples: texel x holds Cb Cr of sample x and of sample x + 1
    /// (the last repeated), so bilinear chroma takes two reads a pixel instead of four
    /// (`PlaneTextureLayout.pairsChroma`). 16-bit samples go in pairs of bytes (Cb low, Cb high,
    /// Cr low, Cr high). The interleaved rows are written into a buffer the context keeps for the
    /// next upload of the same size (`interleavedChroma`), not allocated a frame.
    func uploadInterleavedChroma(of buffer: PixelBuffer, into texture: TextureFrame) throws {
        let shape = buffer.shape(ofPlane: 1)
        let (first, second) = (buffer.planes[1], buffer.planes[2])
        let sampleBytes = buffer.format.bytesPerSample
        let rowBytes = shape.width * 4
        if interleavedChroma.count != rowBytes * shape.height {
            interleavedChroma = [UInt8](repeating: 0, count: rowBytes * shape.height)
        }
        buffer.data.withUnsafeBytes { source in
            interleavedChroma.withUnsafeMutableBytes { target in
                guard let source = source.baseAddress?.assumingMemoryBound(to: UInt8.self),
                      let target = target.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
                for y in 0..<shape.height {
                    let a = source + first.offset + y * first.bytesPerRow
                    let b = source + second.offset + y * second.bytesPerRow
                    let row = target + y * rowBytes
                    if sampleBytes == 1 {
                        let last = shape.width - 1
                        for x in 0..<shape.width {
                            let next = min(x + 1, last)
                            row[4 * x] = a[x]
                            row[4 * x + 1] = b[x]
                            row[4 * x + 2] = a[next]
                            row[4 * x + 3] = b[next]
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
        try interleavedChroma.withUnsafeBytes { try upload($0, bytesPerRow: rowBytes, into: texture) }
    }
}
