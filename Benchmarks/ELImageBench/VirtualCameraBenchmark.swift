// The virtual camera (I420 source → VirtualCamera → an emulated v4l2loopback device, what
// `elimage run clip -o /dev/videoN` runs minus the decode) next to its floor: the bare-GLES floor
// (FloorPipeline: upload, convert, I420 pack, readback) then a copy into a driver buffer, frame by
// frame, alternating, in one run.

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
        var samples: [String: [Double]] = [:]
        let formats: [(FourCC, String)] = [(.yu12, "I420"), (.yuyv, "YUYV")]
        let devices = try formats.map { fourCC, _ in try Device(fourCC: fourCC, clip: clip, on: context) }
        let floor = try Floor(width: clip.width, height: clip.height, on: context)
        defer { floor.delete(on: context) }
        // Frame by frame, alternating: each format's virtual camera, then the floor.
        for index in 0..<(frames + 5) {  // the first five warm up
            let buffer = clip.frame(index)
            for (device, (_, name)) in zip(devices, formats) {
                let milliseconds = try device.write(buffer, on: context)
                if index >= 5 { samples[name, default: []].append(milliseconds) }
            }
            let milliseconds = try floor.run(buffer, on: context)
            if index >= 5 { samples["floor", default: []].append(milliseconds) }
        }
        for device in devices { try device.finish() }
        let floorLatency = LatencyStatistics(milliseconds: samples["floor"] ?? [])
        return formats.map { _, name in
            let latency = LatencyStatistics(milliseconds: samples[name] ?? [])
            return PipelineResult(
                name: "virtual camera \(name) (I420 in → VirtualCamera → emulated v4l2loopback), frame in to device",
                size: clip.sizeName, latency: latency, ratioToBare: name == "I420" ? latency.p50 / floorLatency.p50 : nil,
                note: name == "YUYV" ? "the default format: 4:2:2, twice the bytes of I420 packed and read back" : nil)
        } + [PipelineResult(name: "virtual camera, floor (upload, convert, I420 pack, readback) then memcpy", size: clip.sizeName,
                            latency: floorLatency, ratioToBare: nil)]
    }

    /// The floor and the driver buffer it copies into, used on the render thread only.
    private final class Floor: @unchecked Sendable {
        // @unchecked Sendable: made, run and deleted on the render thread (performAndWait), one call at a time.
        private let pipeline: FloorPipeline
        private var result: [UInt8]
        private var driverBuffer: [UInt8]

        init(width: Int, height: Int, on context: RenderContext) throws {
            pipeline = try context.performAndWait { _ in UncheckedBox(try FloorPipeline(width: width, height: height, filter: .none)) }.value
            result = [UInt8](repeating: 0, count: pipeline.frameBytes)
            driverBuffer = result
        }

        /// ms of the floor's frame then a copy into a driver buffer.
        func run(_ buffer: PixelBuffer, on context: RenderContext) throws -> Double {
            try context.performAndWait { _ in
                let start = ContinuousClock.now
                buffer.data.withUnsafeBytes { bytes in result.withUnsafeMutableBytes { pipeline.run(bytes, into: $0) } }
                result.withUnsafeBytes { source in driverBuffer.withUnsafeMutableBytes { $0.copyMemory(from: source) } }
                return elapsedMilliseconds(ContinuousClock.now - start)
            }
        }

        func delete(on context: RenderContext) {
            try? context.performAndWait { _ in pipeline.delete() }
        }
    }

    /// Carries a value made on the render thread back to the caller.
    private struct UncheckedBox<Value>: @unchecked Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }

    /// A virtual camera writing one format to its own emulated loopback device.
    private final class Device: Sendable {
        let loopback = EmulatedLoopbackDevice()
        let input = RawDataInput()
        let camera: VirtualCamera

        init(fourCC: FourCC, clip: SourceClip, on context: RenderContext) throws {
            camera = try VirtualCamera(device: loopback.path, settings: VirtualCameraSettings(formats: [fourCC]),
                                       io: EmulatedDeviceIO([], loopbacks: [loopback]))
            input --> camera
        }

        /// ms from handing `buffer` to the graph until the device has it.
        func write(_ buffer: PixelBuffer, on context: RenderContext) throws -> Double {
            let before = loopback.counters.framesWritten
            let start = ContinuousClock.now
            let input = self.input
            try context.performAndWait { context in try input.process(buffer, in: context) }
            while loopback.counters.framesWritten == before {
                if ContinuousClock.now - start > .seconds(10) {
                    throw BenchmarkFailure("the virtual camera wrote no frame within 10 s: \(camera.statistics)")
                }
                usleep(20)
            }
            return elapsedMilliseconds(ContinuousClock.now - start)
        }

        func finish() throws {
            let camera = self.camera
            _ = try blocking { try await camera.finish() }
        }
    }
}
