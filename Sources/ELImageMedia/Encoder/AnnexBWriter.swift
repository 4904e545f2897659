import ELImage

/// A raw H.264 Annex-B elementary stream (`.h264`): x264's NAL units with start codes, written
/// straight to the file in decoding order (SPS/PPS repeat before every keyframe, so any keyframe
/// is a starting point). The file is flushed to disk every sync interval of stream time.
final class AnnexBWriter: PacketContainer {
    private let writer: any MediaFileWriter
    private let syncTicks: Int64
    private let timescale: Int64
    private var syncStart: Int64?
    private var firstDTS: Int64?
    private var framesSynced = 0
    private var framesPending = 0
    private var syncIndex = 0
    private var closed = false
    private(set) var bytesWritten: Int64 = 0
    var pendingBytes: Int64 { 0 }

    init(writer: any MediaFileWriter, timescale: Int32, syncInterval: Duration) {
        self.writer = writer
        self.timescale = Int64(timescale)
        let (seconds, attoseconds) = syncInterval.components
        syncTicks = max(1, Int64(((Double(seconds) + Double(attoseconds) / 1e18) * Double(timescale)).rounded()))
    }

    func write(_ packet: EncodedPacket, frameNumber: Int) throws -> FragmentInfo? {
        guard !closed else {
            throw ELImageError.invalidState(node: "VideoEncoder", reason: "frame \(frameNumber) came after \(writer.path) was finished")
        }
        var synced: FragmentInfo?
        if firstDTS == nil { firstDTS = packet.dts }
        if let start = syncStart, framesPending > 0, packet.dts - start >= syncTicks {
            synced = try sync(at: packet.dts)
        }
        if framesPending == 0 { syncStart = packet.dts }
        try packet.data.withUnsafeBytes { try writer.write($0) }
        bytesWritten += Int64(packet.data.count)
        framesPending += 1
        return synced
    }

    func finish(endsRecording: Bool) throws -> [FragmentInfo] {
        guard !closed else { return [] }
        closed = true
        let last = framesPending > 0 ? try sync(at: nil) : nil
        try writer.close()
        return last.map { [$0] } ?? []
    }

    func abandon() {
        closed = true
        try? writer.close()
    }

    private func sync(at dts: Int64?) throws -> FragmentInfo {
        try writer.synchronize()
        syncIndex += 1
        framesSynced += framesPending
        framesPending = 0
        let ticks = (dts ?? syncStart ?? 0) - (firstDTS ?? 0)
        return FragmentInfo(index: syncIndex, framesCompleted: framesSynced,
                            duration: .seconds(ticks / timescale) + .nanoseconds((ticks % timescale) * 1_000_000_000 / timescale),
                            bytes: bytesWritten)
    }
}
