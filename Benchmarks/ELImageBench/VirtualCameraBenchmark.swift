// The virtual camera (I420 source → VirtualCamera → an emulated v4l2loopback device, what
// `elimage run clip -o /dev/videoN` runs minus the decode) next to its floor: the bare-GLES floor
// (FloorPipeline: upload, convert, I420 pack, readback) then a copy into a driver buffer, in
// alternating blocks (InterleavedTiming), in one run.

import ELImage
import ELImageCamera
import ELImageTesting
import Foundation

/// Per-frame latency of the virtual camera, from a frame entering the graph until the device has
/// it, one frame at a time: I420 (the floor's output, so the ratio compares like with like) and
/// YUYV (the default format, twice the bytes), against the floor then `memcpy` into a buffer.
struct VirtualCameraBenchmark {
    let clip: SourceClip
    let frames: Int

    func run(on context: RenderContext) throws -> [PipelineResult] {
        let (width, height, sources) = (clip.width, clip.height, clip.frames)
        let floor = try context.performAndWait { _ in Box(try FloorPipeline(width: width, height: height, filter: .none)) }
        defer { _ = try? context.performAndWait { _ in floor.value.delete() } }
        let result = Box([UInt8](repeating: 0, count: floor.value.frameBytes))
        let driverBuffer = Box(result.value)
        let counter = Box(0)
        let bare: @Sendable (isolated RenderContext) throws -> Void = { _ in
            counter.value += 1
            sources[counter.value % sources.count].data.withUnsafeBytes { bytes in
                result.value.withUnsafeMutableBytes { floor.value.run(bytes, into: $0) }
            }
            result.value.withUnsafeBytes { source in driverBuffer.value.withUnsafeMutableBytes { $0.copyMemory(from: source) } }
        }
        var results: [PipelineResult] = []
        var floorLatency: LatencyStatistics?
        for (fourCC, name) in [(FourCC.yu12, "I420"), (.yuyv, "YUYV")] {
            let device = try Device(fourCC: fourCC)
            let timing = try InterleavedTiming(frames: frames).measure(framework: device.writing(sources), bare: bare, on: context)
            try device.finish()
            floorLatency = floorLatency ?? timing.bare
            results.append(PipelineResult(
                name: "virtual camera \(name) (I420 in → VirtualCamera → emulated v4l2loopback), frame in to device",
                size: clip.sizeName, latency: timing.framework, ratioToBare: name == "I420" ? timing.framework.p50 / timing.bare.p50 : nil,
                note: name == "YUYV" ? "the default format: 4:2:2, twice the bytes of I420 packed and read back" : nil))
        }
        if let floorLatency {
            results.append(PipelineResult(name: "virtual camera, floor (upload, convert, I420 pack, readback) then memcpy",
                                          size: clip.sizeName, latency: floorLatency, ratioToBare: nil))
        }
        return results
    }

    /// A virtual camera writing one format to its own emulated loopback device.
    private final class Device: Sendable {
        let loopback = EmulatedLoopbackDevice()
        let input = RawDataInput()
        let camera: VirtualCamera

        init(fourCC: FourCC) throws {
            camera = try VirtualCamera(device: loopback.path, settings: VirtualCameraSettings(formats: [fourCC]),
                                       io: EmulatedDeviceIO([], loopbacks: [loopback]))
            input --> camera
        }

        /// A timed step: `sources`' next frame into the graph, then (on the render thread, which
        /// the writer thread does not need) a wait until the device has it.
        func writing(_ sources: [PixelBuffer]) -> @Sendable (isolated RenderContext) throws -> Void {
            let counter = Box(0)
            return { [self] context in
                counter.value += 1
                let before = loopback.counters.framesWritten
                let start = ContinuousClock.now
                try input.process(sources[counter.value % sources.count], in: context)
                while loopback.counters.framesWritten == before {
                    if ContinuousClock.now - start > .seconds(10) {
                        throw BenchmarkFailure("the virtual camera wrote no frame within 10 s: \(camera.statistics)")
                    }
                    usleep(20)
                }
            }
        }

        func finish() throws {
            let camera = self.camera
            _ = try blocking { try await camera.finish() }
        }
    }
}
