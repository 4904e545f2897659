import CGLES
import ELImage

/// I420 upload + conversion to RGBA, and RGBA → I420 conversion + readback, each next to a bare-GLES
/// loop running the same shaders with the same uploads, draws and readbacks on the same context.
struct YUVBenchmark {
    let width: Int
    let height: Int
    let frames: Int

    func run(on context: RenderContext) throws -> [PipelineResult] {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<PixelFormat.i420.byteCount(width: width, height: height)).map { _ in
            UInt8.random(in: 16...235, using: &generator)
        }
        let i420 = try PixelBuffer(format: .i420, width: width, height: height, data: bytes, colorSpace: .bt709)
        let size = "\(width)x\(height)"

        let upload = try context.performAndWait { _ in Box(try BareI420Upload(width: width, height: height)) }
        let timing = InterleavedTiming(frames: frames)
        let (uploadFramework, uploadBare) = try timing.measure(
            framework: { context in _ = try context.makeFrame(from: i420) },
            bare: { _ in upload.value.run(i420) }, on: context)
        try context.performAndWait { _ in upload.value.delete() }

        let readback = try context.performAndWait { _ in Box(try BareI420Readback(width: width, height: height)) }
        let frame = try context.performAndWait { context in Box(try context.makeFrame(from: i420)) }
        let target = Box(try PixelBuffer(format: .i420, width: width, height: height, colorSpace: .bt709))
        let (readFramework, readBare) = try timing.measure(
            framework: { context in try context.readPixels(of: frame.value, into: &target.value) },
            bare: { _ in readback.value.run(texture: frame.value.texture, into: &target.value) }, on: context)
        try context.performAndWait { _ in readback.value.delete() }

        return [
            PipelineResult(name: "I420 upload + convert to RGBA", size: size, latency: uploadFramework,
                           ratioToBare: uploadFramework.p50 / uploadBare.p50),
            PipelineResult(name: "I420 upload + convert, bare GLES", size: size, latency: uploadBare, ratioToBare: nil),
            PipelineResult(name: "RGBA → I420 convert + readback", size: size, latency: readFramework,
                           ratioToBare: readFramework.p50 / readBare.p50),
            PipelineResult(name: "RGBA → I420 convert + readback, bare GLES", size: size, latency: readBare, ratioToBare: nil),
        ]
    }
}
