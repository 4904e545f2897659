import CV4L2
import ELImageCamera
import Glibc

/// A buffer of an emulated device that an application maps: real memory, found by its `offset`.
protocol EmulatedMappedBuffer {
    var memory: UnsafeMutableRawPointer { get }
    var length: Int { get }
    var offset: UInt32 { get }
    var mappings: Int { get set }
}

/// The buffers of an emulated device, and those freed while still mapped.
protocol EmulatedBufferStore {
    associatedtype Buffer: EmulatedMappedBuffer
    var buffers: [Buffer] { get set }
    var orphans: [Buffer] { get set }
}

/// The buffer bookkeeping cameras and loopback devices share: allocation (REQBUFS), what
/// QUERYBUF/QBUF/DQBUF report, mmap, munmap and release. A buffer freed while mapped (REQBUFS 0, a
/// close, a device made anew) waits among the orphans until its last unmap.
enum EmulatedBuffers {
    /// Maps the buffer at `offset` (at most its length): its memory, with one more mapping counted.
    static func map<Buffer: EmulatedMappedBuffer>(_ buffers: inout [Buffer], length: Int, offset: Int64) throws(DeviceErrno)
        -> UnsafeMutableRawPointer {
        guard let index = buffers.firstIndex(where: { Int64($0.offset) == offset }), length <= buffers[index].length else {
            throw DeviceErrno(EINVAL)
        }
        buffers[index].mappings += 1
        return buffers[index].memory
    }

    /// `count` buffers (2 to 32) of whole pages holding `imageSize` bytes each, laid end to end
    /// in the device's offset space, made by `make(memory, length, offset)`.
    static func allocate<Buffer: EmulatedMappedBuffer>(_ count: Int, imageSize: Int,
                                                       make: (UnsafeMutableRawPointer, Int, UInt32) -> Buffer) -> [Buffer] {
        let pageSize = 4096
        let length = max((imageSize + pageSize - 1) / pageSize * pageSize, pageSize)
        return (0..<min(max(count, 2), 32)).map { index in
            make(UnsafeMutableRawPointer.allocate(byteCount: length, alignment: pageSize), length, UInt32(index * length))
        }
    }

    /// Lets go of `store`'s buffers: those still mapped become orphans (freed at their last
    /// unmap), the others are freed now; returns how many were freed.
    static func release<Store: EmulatedBufferStore>(in store: inout Store) -> Int {
        let freed = store.buffers.filter { $0.mappings == 0 }
        freed.forEach { $0.memory.deallocate() }
        store.orphans += store.buffers.filter { $0.mappings > 0 }
        store.buffers = []
        return freed.count
    }

    /// Fills what QUERYBUF, QBUF and DQBUF report of buffer `index` of queue `type` alike for
    /// every device: index, type, mmap memory, length, offset, no fields, and the MAPPED flag with
    /// `flags`.
    static func describe<Buffer: EmulatedMappedBuffer>(_ stored: Buffer, index: Int, type: v4l2_buf_type, flags: UInt32,
                                                      into buffer: UnsafeMutablePointer<v4l2_buffer>) {
        buffer.pointee = v4l2_buffer()
        buffer.pointee.index = UInt32(index)
        buffer.pointee.type = type.rawValue
        buffer.pointee.memory = V4L2_MEMORY_MMAP.rawValue
        buffer.pointee.length = UInt32(stored.length)
        buffer.pointee.m.offset = stored.offset
        buffer.pointee.field = V4L2_FIELD_NONE.rawValue
        buffer.pointee.flags = flags | (stored.mappings > 0 ? UInt32(V4L2_BUF_FLAG_MAPPED) : 0)
    }

    /// What unmapping an address did.
    enum Unmapped { case notOurs, unmapped, freedOrphan }

    /// Unmaps `address` from `store`'s buffers or orphans, freeing an orphan at its last unmap.
    static func unmap<Store: EmulatedBufferStore>(_ address: UnsafeMutableRawPointer, in store: inout Store) -> Unmapped {
        if let index = store.buffers.firstIndex(where: { $0.memory == address && $0.mappings > 0 }) {
            store.buffers[index].mappings -= 1
            return .unmapped
        }
        guard let index = store.orphans.firstIndex(where: { $0.memory == address && $0.mappings > 0 }) else { return .notOurs }
        store.orphans[index].mappings -= 1
        guard store.orphans[index].mappings == 0 else { return .unmapped }
        store.orphans.remove(at: index).memory.deallocate()
        return .freedOrphan
    }
}
