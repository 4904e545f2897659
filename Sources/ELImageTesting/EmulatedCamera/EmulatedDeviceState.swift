import ELImage
import ELImageCamera

/// The mutable state of an `EmulatedVideoDevice`, touched only with its lock held.
struct EmulatedDeviceState: EmulatedBufferStore {
    struct FrameKey: Hashable {
        var fourCC: FourCC
        var width: Int
        var height: Int
    }

    /// The mode set by S_FMT.
    struct Mode {
        var fourCC: FourCC
        var width: Int
        var height: Int
        var bytesPerLine: Int
        var imageSize: Int
    }

    enum BufferState { case application, queued, done }

    /// One mmap buffer: real memory the application maps.
    struct Buffer: EmulatedMappedBuffer {
        let memory: UnsafeMutableRawPointer
        let length: Int
        let offset: UInt32
        var state = BufferState.application
        var bytesUsed = 0
        var sequence: UInt32 = 0
        var timestamp: Int64 = 0
        var damaged = false
        var mappings = 0
    }

    var controls: [EmulatedControl]
    var picture: RGBAImage?
    var format: Mode?
    var interval = FrameInterval(numerator: 1, denominator: 30)
    /// The descriptor that allocated the buffers (V4L2's queue owner).
    var owner: Int32?
    var buffers: [Buffer] = []
    /// Buffers freed by REQBUFS(0) or close while still mapped: freed on their last munmap.
    var orphans: [Buffer] = []
    var queued: [Int] = []
    var done: [Int] = []
    var streaming = false
    var streamStart: Int64 = 0
    var nextSequence: UInt32 = 0
    var openDescriptors: Set<Int32> = []

    var openError: Int32?
    var unplugged = false
    var stalled = false
    var spuriousWakeups = 0
    var corruptNext = false
    var extendedControlQuery = true
    var marksFrames = false

    /// Encoded frames per mode: tightly packed planes, or a JPEG.
    var frameCache: [FrameKey: [UInt8]] = [:]
    var scaledPictures: [FrameKey: RGBAImage] = [:]
    var counters = EmulatedVideoDevice.Counters()

    init(controls: [EmulatedControl], picture: RGBAImage?) {
        self.controls = controls
        self.picture = picture
    }

    var intervalMicroseconds: Int64 { max(1, interval.microseconds) }

    /// When frame `sequence` is due (real-time pacing), in monotonic microseconds.
    func dueTime(of sequence: UInt32) -> Int64 {
        streamStart + Int64(sequence) * intervalMicroseconds
    }

    /// Moves the schedule so that the next frame is due one interval from `now` (after a stall).
    mutating func rebaseSchedule(now: Int64) {
        streamStart = now + intervalMicroseconds - Int64(nextSequence) * intervalMicroseconds
    }

    var heldByApplication: Int {
        streaming ? buffers.filter { $0.state == .application }.count : 0
    }

    /// Frees the buffers, keeping mapped ones until their munmap.
    mutating func releaseBuffers() {
        let freed = EmulatedBuffers.release(in: &self)
        counters.liveBuffers -= freed
        queued = []
        done = []
        owner = nil
    }

    /// Frees every buffer, mapped or not (the device is going away).
    mutating func freeAllMemory() {
        for buffer in buffers + orphans { buffer.memory.deallocate() }
        buffers = []
        orphans = []
    }
}
