import ELImage
import Foundation

/// The files of one recording, on the encoder thread: one file, or (with `RecordingSegments`) a
/// new file at each cut. It takes the encoder's packets in decoding order as a container does;
/// each file gets its own container, opened with its times counted from the cut.
///
/// A cut is asked for before a frame is encoded (`wantsKeyframe`): the frame becomes an IDR
/// picture, and the file changes at that packet (closed GOPs: every packet before it in decoding
/// order is shown before it). The finished file is completed, put in place and reported, and in
/// loop recording the oldest files beyond the number kept are deleted.
///
/// With a pre-record trigger, the packets wait in a `PreRecordBuffer` (the last window of
/// recording time, nothing written) until the trigger is pulled and the encoder has given out the
/// frame it asks for; the first file then starts with that frame (every frame that waits is a
/// keyframe: see `H264FrameWriter`).
final class SegmentedOutput {
    /// A file and its container, open.
    struct Segment {
        let file: any MediaFileWriter
        let container: any PacketContainer
        /// Recording time (ticks) of the file's zero: its first frame's.
        let origin: Int64
        let startDate: Date
        /// 1 for the recording's first file.
        var number = 0
        var packets = 0
        var lastFragment: FragmentInfo?
    }

    /// Opens segment `index` (0 for the first) whose times start at recording time `origin`,
    /// at a path not among `taken` (the recording's files so far).
    typealias Opener = (_ index: Int, _ origin: Int64, _ taken: Set<String>) throws -> Segment

    private let open: Opener
    private let segments: RecordingSegments?
    private let timescale: Int32
    private let report: (SegmentReport) -> Void
    private let trigger: RecordingTrigger?
    private var buffer: PreRecordBuffer?
    /// Lets go of the sound before a recording time, while the buffer waits for the trigger.
    private let releaseSound: (Int64) throws -> Void
    /// The first file's zero: the recording's, or with a trigger the trigger's less the window.
    private var firstOrigin: Int64 = 0
    private var current: Segment?
    private var index = 0
    /// The recording times of the frames made keyframes to start the next files, not yet out of
    /// the encoder, and of the last cut made (the first file's start: zero).
    private var pendingCuts: [Int64] = []
    private var lastCut: Int64 = 0
    private var cutsBeforeTriggerPlanned = false
    private var closedBytes: Int64 = 0
    /// Files put in place, oldest first (the newest `keepingLast` in loop recording).
    private var kept: [String] = []
    /// Every file put in place, deleted ones too: a new file's name avoids them.
    private var usedNames: Set<String> = []

    /// What happened to the files, for the recording's events (a file that is not a segment is
    /// reported as segment 1).
    enum SegmentReport: Sendable {
        case finished(SegmentInfo)
        case deleted(String)
    }

    /// What one packet did: the fragments completed, the packets written into a file (a pulled
    /// trigger writes the buffer), and the packets the pre-record buffer let go unwritten.
    struct Written {
        var fragments: [FragmentInfo] = []
        var packets = 0
        var discarded = 0
    }

    init(segments: RecordingSegments?, timescale: Int32, trigger: RecordingTrigger? = nil,
         releaseSound: @escaping (Int64) throws -> Void = { _ in },
         open: @escaping Opener, report: @escaping (SegmentReport) -> Void) {
        self.segments = segments
        self.timescale = timescale
        self.trigger = trigger
        self.releaseSound = releaseSound
        buffer = trigger.map { PreRecordBuffer(window: RecordingSession.ticks($0.window, timescale: timescale)) }
        self.open = open
        self.report = report
    }

    /// The most bytes the pre-record buffer held at once.
    private(set) var preRecordPeakBytes: Int64 = 0

    var bytesWritten: Int64 { closedBytes + (current?.container.bytesWritten ?? 0) }
    var pendingBytes: Int64 { current?.container.pendingBytes ?? 0 }
    /// The open file's bytes, flushed and pending.
    var segmentBytes: Int64 { (current?.container.bytesWritten ?? 0) + pendingBytes }

    /// Whether the frame at recording time `pts` must be a keyframe because it starts the next
    /// file. Decided as frames go into the encoder, which holds several before the first comes
    /// out: a duration counts from the last cut asked for; a size from what the open file would
    /// hold with the frames the encoder still holds (`projectedBytes`), one cut at a time.
    /// `triggerStart`: where a pulled pre-record trigger starts the file (read once by the caller
    /// for this frame).
    func wantsKeyframe(at pts: Int64, projectedBytes: Int64, triggerStart: Int64? = nil) -> Bool {
        guard let segments else { return false }
        var base = lastCut
        if trigger != nil {
            // Before the trigger there is no file to cut. Once it is pulled, the first file starts
            // at its time, and the cuts among the frames encoded before this one, keyframes all
            // (waiting for the trigger), fall where they are due. The encoder may already have
            // given out the first frame, and the buffer been written, before this frame saw the
            // pull: the plan does not wait for either.
            guard let start = triggerStart else { return false }
            if !cutsBeforeTriggerPlanned, case .duration(let length) = segments.length {
                cutsBeforeTriggerPlanned = true
                let step = max(1, RecordingSession.ticks(length, timescale: timescale))
                var cut = start + step
                while cut < pts {
                    pendingCuts.append(cut)
                    cut += step
                }
            }
            if buffer != nil { base = start }
        }
        let due: Bool
        switch segments.length {
        case .duration(let length):
            due = pts - (pendingCuts.last ?? base) >= RecordingSession.ticks(length, timescale: timescale)
        case .bytes(let length):
            due = pendingCuts.isEmpty && current != nil && projectedBytes >= length
        }
        if due { pendingCuts.append(pts) }
        return due
    }

    /// Writes `packet` into the open file (first starting the next file when it is the cut's
    /// keyframe), or keeps it in the pre-record buffer until the trigger.
    func write(_ packet: EncodedPacket) throws -> Written {
        guard var waiting = buffer else {
            let fragments = try writeIntoFile(packet)
            return Written(fragments: fragments, packets: 1)
        }
        let held = waiting.packets.count
        waiting.append(packet)
        preRecordPeakBytes = max(preRecordPeakBytes, waiting.peakBytes)
        buffer = waiting
        // The file starts once the encoder, which holds frames back, has given out the frame the
        // trigger starts it at.
        guard let start = trigger?.fileStart, waiting.newest >= start else {
            // A second before the window, so that the sound a pulled trigger needs is kept.
            try releaseSound(waiting.windowStart - Int64(timescale))
            return Written(discarded: held + 1 - waiting.packets.count)
        }
        var written = try writeBuffer()
        written.discarded += held + 1 - written.packets
        return written
    }

    /// After the trigger: the buffer from the keyframe before the file's start, into the file.
    private func writeBuffer() throws -> Written {
        guard var waiting = buffer, let start = trigger?.fileStart else { return Written() }
        buffer = nil
        let (packets, origin) = waiting.drain(from: start)
        firstOrigin = origin
        lastCut = origin
        var written = Written()
        for packet in packets {
            written.fragments += try writeIntoFile(packet)
            written.packets += 1
        }
        return written
    }

    private func writeIntoFile(_ packet: EncodedPacket) throws -> [FragmentInfo] {
        var fragments: [FragmentInfo] = []
        if let cut = pendingCuts.first, packet.isKeyframe, packet.pts >= cut {
            pendingCuts.removeFirst()
            lastCut = packet.pts
            fragments += try finishCurrent(endsRecording: false)
            try publishCurrent()
        }
        if current == nil {
            // The first file's zero is the recording's (its first frame), later ones' their cut.
            var segment = try open(index, index == 0 ? firstOrigin : packet.pts, usedNames)
            index += 1
            segment.number = index
            current = segment
        }
        guard var segment = current else { return fragments }
        if let fragment = try segment.container.write(packet, frameNumber: segment.packets) {
            segment.lastFragment = fragment
            fragments.append(fragment)
        }
        segment.packets += 1
        current = segment
        return fragments
    }

    /// Completes the open file (still under its temporary name) and ends the sound. A trigger
    /// pulled since the last packet writes the buffer first; one never pulled writes nothing.
    func finish() throws -> Written {
        var written = Written()
        if buffer != nil {
            let held = buffer?.packets.count ?? 0
            written = try writeBuffer()
            written.discarded = held - written.packets
            buffer = nil
        }
        written.fragments += try finishCurrent(endsRecording: true)
        return written
    }

    func abandon() { current?.container.abandon() }

    /// Puts the last file in place.
    func publish() throws {
        try publishCurrent()
    }

    /// After a failure: the open file is put in place when it holds something, removed otherwise.
    func salvage() {
        guard let segment = current else { return }
        if segment.container.bytesWritten == 0 { segment.file.remove() } else { try? publishCurrent() }
    }

    /// Removes every file of the recording (a cancel).
    func discard() {
        current?.file.remove()
        current = nil
        for path in kept { unlink(path) }
        kept.removeAll()
    }

    private var finishedCurrent = false

    private func finishCurrent(endsRecording: Bool) throws -> [FragmentInfo] {
        guard var segment = current, !finishedCurrent else { return [] }
        let fragments = try segment.container.finish(endsRecording: endsRecording)
        if let last = fragments.last { segment.lastFragment = last }
        current = segment
        finishedCurrent = true
        return fragments
    }

    private func publishCurrent() throws {
        guard let segment = current else { return }
        try segment.file.publish()
        current = nil
        finishedCurrent = false
        closedBytes += segment.container.bytesWritten
        kept.append(segment.file.path)
        usedNames.insert(segment.file.path)
        report(.finished(SegmentInfo(
            index: segment.number, path: segment.file.path, frames: segment.packets,
            start: RecordingSession.duration(ticks: segment.origin, timescale: timescale),
            duration: segment.lastFragment?.duration ?? .zero, bytes: segment.container.bytesWritten,
            startDate: segment.startDate)))
        if let keep = segments?.keepingLast {
            while kept.count > keep {
                let oldest = kept.removeFirst()
                unlink(oldest)
                report(.deleted(oldest))
            }
        }
    }
}
