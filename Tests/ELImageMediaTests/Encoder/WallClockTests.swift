import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// A recording's wall-clock time in its MP4: `creation_time`, and a producer reference time box
/// (`prft`) before every fragment, read back from the file's bytes.
@Suite("Recording wall-clock time", .closesContexts)
struct WallClockTests {
    /// One `prft` box: the NTP time (as microseconds since 1970) of the media time that starts
    /// the fragment after it.
    struct ProducerReferenceTime {
        var wallClockMicroseconds: Int64
        var mediaTime: Int64
    }

    @Test("creation_time and a prft box per fragment: the first frame's wall-clock time plus the source time since it, pauses included")
    func wallClockInFile() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        let (input, encoder) = try EncoderFixtures.rawInputIntoEncoder()
        let frames = try EncoderFixtures.pannedAstronaut(width: 64, height: 48, count: 30)
        let times = (0..<30).map { MediaTime(frame: Int64($0), framesPerSecond: 30) }
        let path = folder.path("clock.mp4")
        let before = Date()
        try encoder.start(recordingTo: path, container: .mp4(fragmentDuration: .milliseconds(100)))
        try await EncoderFixtures.feed(Array(frames[0..<10]), into: input, on: context, timestamps: Array(times[0..<10]))
        encoder.pause()  // frames 10..<20 (a third of a second of source time) are cut out
        try await EncoderFixtures.feed(Array(frames[10..<20]), into: input, on: context, timestamps: Array(times[10..<20]))
        encoder.resume()
        try await EncoderFixtures.feed(Array(frames[20..<30]), into: input, on: context, timestamps: Array(times[20..<30]))
        let summary = try await encoder.finish()
        let after = Date()
        #expect(summary.statistics.encoded == 20)
        #expect(summary.startDate >= before && summary.startDate <= after, "\(summary.startDate) not in \(before)...\(after)")

        // creation_time: the start, to the second (mvhd holds whole seconds).
        let tags = try runTool("ffprobe", ["-v", "error", "-show_entries", "format_tags=creation_time",
                                           "-of", "default=noprint_wrappers=1:nokey=1", path])
        let creation = String(decoding: tags, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let wholeSeconds = Date(timeIntervalSince1970: summary.startDate.timeIntervalSince1970.rounded(.down))
        #expect(creation == Self.iso8601(wholeSeconds), "creation_time \(creation)")

        // One prft box before every moof, each pairing its fragment's first sample with its time.
        let boxes = try Self.topLevelBoxes(Data(contentsOf: URL(fileURLWithPath: path)))
        let fragments = boxes.filter { $0.type == "moof" }.count
        let references = boxes.compactMap(\.producerReference)
        #expect(fragments >= 4 && references.count == fragments, "\(references.count) prft boxes, \(fragments) fragments")
        let timescale = try #require(Int64(try EncoderFixtures.probeStream(path)["time_base"]?.split(separator: "/").last ?? ""))
        let start = Int64((summary.startDate.timeIntervalSince1970 * 1e6).rounded())
        let pause: Int64 = 1_000_000 / 3  // the source time the pause cut out
        var sawBoth = (before: false, after: false)
        for reference in references {
            let media = reference.mediaTime * 1_000_000 / timescale
            // Recording time from 10/30 s on comes after the pause: its wall-clock time is a third
            // of a second later. The boxes hold whole milliseconds.
            let afterPause = reference.mediaTime * 30 >= 10 * timescale
            let expected = start + media + (afterPause ? pause : 0)
            #expect(abs(reference.wallClockMicroseconds - expected) <= 1_000,
                    "prft at media \(media) µs: \(reference.wallClockMicroseconds - start) µs after the start, expected \(expected - start)")
            if afterPause { sawBoth.after = true } else { sawBoth.before = true }
        }
        #expect(sawBoth.before && sawBoth.after, "fragments on both sides of the pause")
    }

    /// A top-level MP4 box, with its `prft` fields when it is one.
    struct Box {
        var type: String
        var producerReference: ProducerReferenceTime?
    }

    /// The file's top-level boxes (ISO/IEC 14496-12: 32-bit size and type; `prft` version 1 has
    /// a 64-bit media time).
    static func topLevelBoxes(_ data: Data) throws -> [Box] {
        let bytes = [UInt8](data)
        func integer(_ offset: Int, _ count: Int) -> Int64 {
            bytes[offset..<(offset + count)].reduce(Int64(0)) { $0 << 8 | Int64($1) }
        }
        var boxes: [Box] = []
        var offset = 0
        while offset + 8 <= bytes.count {
            let size = Int(integer(offset, 4))
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            try #require(size >= 8 && offset + size <= bytes.count, "box \(type) at \(offset) of size \(size)")
            var box = Box(type: type)
            if type == "prft" {
                let version = bytes[offset + 8]
                let ntp = UInt64(bitPattern: integer(offset + 16, 8))
                let media = version == 1 ? integer(offset + 24, 8) : integer(offset + 24, 4)
                // NTP: seconds since 1900 in the high 32 bits, a binary fraction in the low.
                let seconds = Int64(ntp >> 32) - 2_208_988_800
                let micro = Int64(((ntp & 0xFFFF_FFFF) * 1_000_000 + (1 << 31)) >> 32)
                box.producerReference = ProducerReferenceTime(wallClockMicroseconds: seconds * 1_000_000 + micro,
                                                              mediaTime: media)
            }
            boxes.append(box)
            offset += size
        }
        return boxes
    }

    /// "2026-11-27T19:00:00.000000Z", as ffprobe prints creation_time.
    static func iso8601(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'"
        return formatter.string(from: date)
    }
}
