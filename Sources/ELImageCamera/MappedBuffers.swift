import CV4L2
import ELImage
import Glibc

/// The memory-mapped buffers of one queue of an open V4L2 device (a camera's capture queue, a
/// virtual camera's output queue): allocated (`VIDIOC_REQBUFS`), looked up (`VIDIOC_QUERYBUF`) and
/// mapped together, and let go together.
struct MappedBuffers: @unchecked Sendable {
    // @unchecked Sendable: raw pointers, read and written only by the thread that streams (a
    // camera's producer, a virtual camera's writer), unmapped by `release` once it has let go.

    /// A driver buffer mapped into this process.
    struct Buffer {
        let address: UnsafeMutableRawPointer
        let length: Int
    }

    /// The queue: `V4L2_BUF_TYPE_VIDEO_CAPTURE` or `V4L2_BUF_TYPE_VIDEO_OUTPUT`.
    let type: v4l2_buf_type
    let buffers: [Buffer]

    var count: Int { buffers.count }
    subscript(index: Int) -> Buffer { buffers[index] }

    /// Asks `device` for `count` mmap buffers of queue `type` (the driver may give another number)
    /// and maps each. `kind` names them in errors ("buffers", "output buffers").
    /// - Throws: `ELImageError.io` when a request fails or the driver gives fewer than `minimum`;
    ///   what was allocated and mapped by then is let go first.
    static func map(_ count: Int, minimum: Int, of type: v4l2_buf_type, kind: String, on device: CameraDevice) throws -> MappedBuffers {
        var request = v4l2_requestbuffers()
        request.count = UInt32(count)
        request.type = type.rawValue
        request.memory = V4L2_MEMORY_MMAP.rawValue
        try device.perform(VIDIOC.requestBuffers, &request, "allocate \(count) \(kind) (VIDIOC_REQBUFS) on")
        var mapped: [Buffer] = []
        do {
            guard request.count >= minimum else {
                throw ELImageError.io(file: device.path, operation: "allocate \(kind) on", errno: ENOMEM,
                                      hint: "errno ENOMEM: the driver gave \(request.count) \(kind), at least \(minimum) are needed")
            }
            for index in 0..<request.count {
                var buffer = v4l2_buffer()
                buffer.index = index
                buffer.type = type.rawValue
                buffer.memory = V4L2_MEMORY_MMAP.rawValue
                try device.perform(VIDIOC.queryBuffer, &buffer, "query \(kind) \(index) (VIDIOC_QUERYBUF) of")
                do throws(DeviceErrno) {
                    mapped.append(Buffer(address: try device.map(length: Int(buffer.length), offset: Int64(buffer.m.offset)),
                                         length: Int(buffer.length)))
                } catch {
                    throw DeviceErrors.failure(error, "map \(kind) \(index) (mmap) of", path: device.path)
                }
            }
        } catch {
            MappedBuffers(type: type, buffers: mapped).release(on: device, streaming: false)
            throw error
        }
        return MappedBuffers(type: type, buffers: mapped)
    }

    /// Stops the queue (`VIDIOC_STREAMOFF`) when it streams, unmaps the buffers and frees them
    /// (`VIDIOC_REQBUFS` 0). Each failure is ignored: the device may be gone.
    func release(on device: CameraDevice, streaming: Bool) {
        if streaming {
            var queue = Int32(type.rawValue)
            try? device.call(VIDIOC.streamOff, &queue)
        }
        for buffer in buffers { device.io.munmap(buffer.address, length: buffer.length) }
        var request = v4l2_requestbuffers()
        request.type = type.rawValue
        request.memory = V4L2_MEMORY_MMAP.rawValue
        try? device.call(VIDIOC.requestBuffers, &request)
    }
}
