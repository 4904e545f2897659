import ELImage
import ELImageTestSupport
import Foundation
import Testing

/// RGBA → Y'CbCr on the GPU, read back into CPU planes.
@Suite("RGB to YUV", .closesContexts)
struct RGBToYUVTests {
    static let colorSpaces = YUVToRGBTests.colorSpaces

    /// Uploads an RGBA picture and reads it back as `format`.
    func readBack(_ rgba: [UInt8], width: Int, height: Int, as buffer: PixelBuffer,
                  chromaDownsampling: ChromaDownsampling = .matched) async throws -> PixelBuffer {
        let context = try TestContexts.make()
        let input = RawDataInput()
        let results = Collector<PixelBuffer>()
        let output = try YUVDataOutput(format: buffer.format, colorSpace: buffer.colorSpace,
                                       chromaLocation: buffer.chromaLocation,
                                       chromaDownsampling: chromaDownsampling) { results.append($0) }
        input --> output
        try await input.process(rgba, width: width, height: height, format: .rgba,
                                timestamp: MediaTime(value: 3, timescale: 30), on: context)
        #expect(try await output.finish() == 1)
        let result = try #require(results.values.first)
        #expect(result.timestamp == MediaTime(value: 3, timescale: 30))
        return result
    }

    func photo(width: Int, height: Int) throws -> [UInt8] {
        let data = try runTool("ffmpeg", ["-v", "error", "-i", Repository.path("Examples/Media/astronaut.png"),
                                          "-vf", "scale=\(width):\(height),format=rgba", "-f", "rawvideo", "-"])
        return [UInt8](data)
    }

    @Test("RGB → YUV 4:4:4 → RGB on a real photo: within 2 levels (limited) or 1 (full)", arguments: colorSpaces)
    func roundTrip(colorSpace: ColorSpace) async throws {
        let (width, height) = (256, 256)
        let rgba = try photo(width: width, height: height)
        let yuv = try await readBack(rgba, width: width, height: height,
                                     as: try PixelBuffer(format: .i444, width: width, height: height, colorSpace: colorSpace))
        let back = try await convertOnGPU(yuv, context: try TestContexts.make())
        var worst = 0
        for index in stride(from: 0, to: rgba.count, by: 4) {
            for channel in 0..<3 { worst = max(worst, abs(Int(back.pixels[index + channel]) - Int(rgba[index + channel]))) }
        }
        #expect(worst <= (colorSpace.range == .limited ? 2 : 1), "\(colorSpace): max \(worst)")
    }

    @Test("I420: luma matches swscale; chroma matches the exact MPEG-2 siting filter", arguments: colorSpaces)
    func i420(colorSpace: ColorSpace) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (width, height) = (250, 182)
        let rgba = try photo(width: width, height: height)
        // The average filter, whose taps the model below follows (ChromaDownsamplingTests covers both).
        let ours = try await readBack(rgba, width: width, height: height,
                                      as: try PixelBuffer(format: .i420, width: width, height: height, colorSpace: colorSpace),
                                      chromaDownsampling: .average)
        // Luma: swscale, an independent implementation.
        let rgbPath = folder.path("photo.rgb")
        try Data(stride(from: 0, to: rgba.count, by: 4).flatMap { rgba[$0..<($0 + 3)] }).write(to: URL(fileURLWithPath: rgbPath))
        let yuvPath = folder.path("photo.yuv")
        try SwscaleReference.yuv(fromRGB: rgbPath, width: width, height: height, pixelFormat: "yuv420p",
                                 colorSpace: colorSpace, output: yuvPath)
        let reference = [UInt8](try Data(contentsOf: URL(fileURLWithPath: yuvPath)))
        var lumaWorst = 0
        for index in 0..<(width * height) { lumaWorst = max(lumaWorst, abs(Int(ours.data[index]) - Int(reference[index]))) }
        #expect(lumaWorst <= 1, "luma max \(lumaWorst)")

        // Chroma: [1 2 1]/4 across (co-sited with even columns) and [1 1]/2 down, in Double.
        let conversion = Self.signalRows(colorSpace)
        let (chromaWidth, chromaHeight) = ((width + 1) / 2, (height + 1) / 2)
        var chromaWorst = 0.0
        for j in 0..<chromaHeight {
            for i in 0..<chromaWidth {
                var sum = SIMD3<Double>(0, 0, 0)
                for (dx, weight) in [(-1, 0.25), (0, 0.5), (1, 0.25)] {
                    for dy in 0...1 {
                        let x = min(max(2 * i + dx, 0), width - 1), y = min(2 * j + dy, height - 1)
                        let offset = (y * width + x) * 4
                        let rgb = SIMD3(Double(rgba[offset]), Double(rgba[offset + 1]), Double(rgba[offset + 2])) / 255
                        sum += rgb * weight * 0.5
                    }
                }
                let cb = (conversion.cb * sum).sum() * conversion.scale + 128
                let cr = (conversion.cr * sum).sum() * conversion.scale + 128
                let u = Double(ours.data[ours.planes[1].offset + j * chromaWidth + i])
                let v = Double(ours.data[ours.planes[2].offset + j * chromaWidth + i])
                chromaWorst = max(chromaWorst, abs(u - cb.rounded()), abs(v - cr.rounded()))
            }
        }
        #expect(chromaWorst <= 1, "chroma max \(chromaWorst)")
    }

    /// Cb and Cr rows of the R'G'B' → Y'CbCr matrix and the 8-bit chroma scale, from Kr/Kb.
    static func signalRows(_ colorSpace: ColorSpace) -> (cb: SIMD3<Double>, cr: SIMD3<Double>, scale: Double) {
        let (kr, kb) = colorSpace.matrix.coefficients
        let kg = 1 - kr - kb
        let cb = SIMD3(-kr, -kg, 1 - kb) / (2 * (1 - kb))
        let cr = SIMD3(1 - kr, -kg, -kb) / (2 * (1 - kr))
        return (cb, cr, colorSpace.range == .limited ? 224 : 255)
    }

    @Test("NV12 and NV21 hold the same samples as I420, interleaved; padded strides are honoured")
    func interleavedAndStrided() async throws {
        let (width, height) = (66, 34)
        let rgba = try photo(width: width, height: height)
        let i420 = try await readBack(rgba, width: width, height: height,
                                      as: try PixelBuffer(format: .i420, width: width, height: height))
        let nv12 = try await readBack(rgba, width: width, height: height,
                                      as: try PixelBuffer(format: .nv12, width: width, height: height))
        let nv21 = try await readBack(rgba, width: width, height: height,
                                      as: try PixelBuffer(format: .nv21, width: width, height: height))
        let luma = width * height, quarter = (width / 2) * (height / 2)
        #expect(Array(nv12.data[0..<luma]) == Array(i420.data[0..<luma]))
        for index in 0..<quarter {
            #expect(nv12.data[luma + 2 * index] == i420.data[luma + index])
            #expect(nv12.data[luma + 2 * index + 1] == i420.data[luma + quarter + index])
            #expect(nv21.data[luma + 2 * index] == i420.data[luma + quarter + index])
        }
        // The same frame into a buffer whose rows are padded.
        let strides = [width + 13, width / 2 + 5, width / 2 + 9]
        var offset = 0
        let planes = (0..<3).map { index -> PixelBuffer.Plane in
            defer { offset += strides[index] * (index == 0 ? height : height / 2) }
            return PixelBuffer.Plane(offset: offset, bytesPerRow: strides[index])
        }
        let empty = try PixelBuffer(format: .i420, width: width, height: height,
                                    data: [UInt8](repeating: 0, count: offset), planes: planes)
        let source = try PixelBuffer(format: .rgba, width: width, height: height, data: rgba)
        let padded = try await TestContexts.make().perform { context in
            var buffer = empty
            try context.readPixels(of: try context.makeFrame(from: source), into: &buffer)
            return buffer
        }
        for y in 0..<height {
            #expect(Array(padded.data[(y * strides[0])..<(y * strides[0] + width)]) == Array(i420.data[(y * width)..<(y * width + width)]))
        }
        for y in 0..<(height / 2) {
            let row = planes[2].offset + y * strides[2]
            let tight = luma + quarter + y * (width / 2)
            #expect(Array(padded.data[row..<(row + width / 2)]) == Array(i420.data[tight..<(tight + width / 2)]))
        }
    }

    @Test("YUYV and UYVY hold the same samples as I422 (both chroma filters), packed two pixels to four bytes",
          arguments: ChromaDownsampling.allCases)
    func packed422(filter: ChromaDownsampling) async throws {
        let (width, height) = (70, 36)
        let rgba = try photo(width: width, height: height)
        let i422 = try await readBack(rgba, width: width, height: height, as: try PixelBuffer(format: .i422, width: width, height: height),
                                      chromaDownsampling: filter)
        let yuyv = try await readBack(rgba, width: width, height: height, as: try PixelBuffer(format: .yuyv, width: width, height: height),
                                      chromaDownsampling: filter)
        let uyvy = try await readBack(rgba, width: width, height: height, as: try PixelBuffer(format: .uyvy, width: width, height: height),
                                      chromaDownsampling: filter)
        #expect(yuyv.data.count == width * height * 2 && uyvy.data.count == width * height * 2)
        let luma = width * height, half = width / 2
        var mismatches = 0
        for y in 0..<height {
            for pair in 0..<half {
                let y0 = i422.data[y * width + 2 * pair], y1 = i422.data[y * width + 2 * pair + 1]
                let cb = i422.data[luma + y * half + pair], cr = i422.data[luma + luma / 2 + y * half + pair]
                let at = y * width * 2 + pair * 4
                if Array(yuyv.data[at..<(at + 4)]) != [y0, cb, y1, cr] { mismatches += 1 }
                if Array(uyvy.data[at..<(at + 4)]) != [cb, y0, cr, y1] { mismatches += 1 }
            }
        }
        #expect(mismatches == 0, "\(filter): \(mismatches) of \(2 * height * half) packed pairs differ from I422")
        // Not a constant: the photo's chroma varies.
        #expect(Set(stride(from: 1, to: yuyv.data.count, by: 4).map { yuyv.data[$0] }).count > 20)
    }

    @Test("Formats that cannot be read back are refused up front")
    func unsupported() {
        #expect(throws: ELImageError.self) { _ = try YUVDataOutput(format: .rgb24) { _ in } }
        #expect(throws: ELImageError.self) { _ = try YUVDataOutput(format: .bgra) { _ in } }
    }
}

@Suite("Packed planes", .closesContexts)
struct PackedPlanesTests {
    @Test("Planes packed on the render thread read the same on a worker thread's shared context after a fence")
    func readOnSharedContext() async throws {
        let context = try TestContexts.make()
        let (width, height) = (90, 50)
        let rgba = randomBytes(width * height * 4, seed: 21)
        let source = try PixelBuffer(format: .rgba, width: width, height: height, data: rgba)
        let empty = try PixelBuffer(format: .i420, width: width, height: height)
        let (planes, onRenderThread, fence) = try await context.perform { context in
            let frame = try context.makeFrame(from: source)
            let planes = try context.packPlanes(of: frame, as: .i420, colorSpace: .bt709)
            var buffer = empty
            try planes.read(into: &buffer)
            return (planes, buffer, try context.insertFence())
        }
        // A framework worker: its shared context is made current, released and destroyed on it,
        // and the thread is joined before the render context closes (as every sink's worker).
        let result = Locked<Result<PixelBuffer, ELImageError>?>(nil)
        let worker = try context.makeWorker(name: "test readback") { failure in
            if let failure { return result.withLock { $0 = .failure(failure) } }
            guard fence.wait() else {
                return result.withLock { $0 = .failure(.invalidState(node: "test", reason: "fence timed out")) }
            }
            var buffer = empty
            do {
                try planes.read(into: &buffer)
                result.withLock { $0 = .success(buffer) }
            } catch {
                result.withLock { $0 = .failure(.invalidState(node: "test", reason: "\(error)")) }
            }
        }
        try worker.start()
        await worker.join()
        let onWorker = try #require(result.withLock { $0 }).get()
        #expect(onWorker.data == onRenderThread.data)
        #expect(onWorker.data.contains { $0 != 0 })
    }
}
