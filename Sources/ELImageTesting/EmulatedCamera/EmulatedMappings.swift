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

/// mmap and munmap of an emulated device's buffers, shared by cameras and loopback devices. A
/// buffer freed while mapped (REQBUFS 0, a close, a device made anew) waits among the orphans
/// until its last unmap.
enum EmulatedMappings {
    /// Maps the buffer at `offset` (at most its length): its memory, with one more mapping counted.
    static func map<Buffer: EmulatedMappedBuffer>(_ buffers: inout [Buffer], length: Int, offset: Int64) throws(DeviceErrno)
        -> UnsafeMutableRawPointer {
        guard let index = buffers.firstIndex(where: { Int64($0.offset) == offset }), length <= buffers[index].length else {
            throw DeviceErrno(EINVAL)
        }
        buffers[index].mappings += 1
        return buffers[index].memory
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
