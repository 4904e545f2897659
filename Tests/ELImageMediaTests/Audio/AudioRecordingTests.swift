import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// Sound in a recording's life: a killed recording keeps both tracks up to its last fragment,
/// and a pause cuts the same stretch from both.
@Suite("Sound: killed and paused recordings")
struct AudioRecordingTests {
    let clip = Repository.path("Examples/Media/bigbuckbunny.mp4")

    @Test("kill -9 while recording with sound: every complete fragment of the .partial file holds audio and video")
    func killedRecording() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let destination = folder.path("killed.mp4")
        let partial = destination + StagedOutputFile.suffix
        // A minute of small frames with sound: long enough to be killed mid-way however fast it goes.
        let source = folder.path("long.mp4")
        try AudioProbe.makeSyncClip(source, seconds: 60)
        let process = Process()
        process.executableURL = BuiltProgram(name: "elimage").url
        process.arguments = ["run", source, "-o", destination]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Kill it hard once two fragments are on disk (each write to the file is an inotify event).
        let fragmentsOnDisk = { Self.boxes(in: FileManager.default.contents(atPath: partial) ?? Data()).filter { $0.type == "moof" }.count }
        let watch = try FolderWatch(folder.url.path)
        _ = await watch.wait(timeout: .seconds(30)) { fragmentsOnDisk() >= 2 || !process.isRunning }
        let fragments = fragmentsOnDisk()
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try #require(fragments >= 2, "the recording wrote \(fragments) fragments before the deadline")

        // The file as far as its last complete fragment (moof + mdat): a kill may cut the one after.
        let data = try Data(contentsOf: URL(fileURLWithPath: partial))
        let top = Self.boxes(in: data)
        let complete = zip(top, top.dropFirst()).filter { $0.0.type == "moof" && $0.1.type == "mdat" }
        let end = try #require(complete.last?.1.end, "no complete fragment in \(top.map(\.type))")
        let kept = folder.path("kept.mp4")
        try data.prefix(end).write(to: URL(fileURLWithPath: kept))
        #expect(complete.count >= 1)
        for (index, pair) in complete.enumerated() {
            let tracks = Self.boxes(in: data, from: pair.0.start + 8, to: pair.0.end).filter { $0.type == "traf" }.count
            #expect(tracks == 2, "fragment \(index + 1) holds \(tracks) track(s)")
        }
        // ffprobe reads both tracks, and the sound ends where the last frame does: after its start,
        // before its end. ffprobe lists no durations for these video packets; a frame lasts until
        // the next (frames dropped as late by the real-time pacing on a busy machine make some
        // last longer), so the last one lasts at most the longest gap between two frames.
        let audio = try AudioProbe.packetEnds(kept, kind: "a")
        let video = try AudioProbe.packetEnds(kept, kind: "v").sorted()
        let audioEnd = try #require(audio.max()), lastFrame = try #require(video.last)
        let longestGap = zip(video, video.dropFirst()).map { $1 - $0 }.max() ?? 0.04
        #expect(lastFrame >= 0.9)
        #expect(audioEnd >= lastFrame - 0.001 && audioEnd <= lastFrame + longestGap + 0.05,
                "audio ends at \(audioEnd) s; the last frame starts at \(lastFrame) s, frames are at most \(longestGap) s apart")
    }

    @Test("Pause and resume with a movie's sound: the paused second is cut from both tracks, which end together")
    func pauseCutsBoth() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try TestContexts.make()
        let (input, encoder) = try EncoderFixtures.rawInputIntoEncoder()
        let path = folder.path("paused.mp4")
        let sound = try #require(try MovieAudioReader.open(path: clip))
        try encoder.start(recordingTo: path, audio: .track(sound))
        let picture = [UInt8](repeating: 128, count: 64 * 48 * 4)
        func feed(_ frames: Range<Int>) async throws {
            for frame in frames {
                try await input.process(picture, width: 64, height: 48, format: .rgba,
                                        timestamp: MediaTime(frame: Int64(frame), framesPerSecond: 25), on: context)
            }
        }
        try await feed(0..<25)
        encoder.pause()
        try await feed(25..<50)
        encoder.resume()
        try await feed(50..<75)
        let summary = try await encoder.finish()
        #expect(summary.statistics.encoded == 50)
        #expect(summary.statistics.audio.packetsDropped > 0, "the paused second's audio is left out")
        let video = try #require(try AudioProbe.streams(path, kind: "v").first)
        let audio = try #require(try AudioProbe.streams(path, kind: "a").first)
        #expect(abs(video.duration - 2.0) < 0.001)
        #expect(abs(audio.duration - video.duration) <= 0.04, "audio \(audio.duration) s, video \(video.duration) s: no gap in either")
        // After the cut comes the source's third second. Packets are 1024 samples: the first 47
        // (to 1.0027 s) are before the pause, the next kept one is the source's 95th (from 2.0053 s);
        // ffmpeg decodes them one after the other. Compared past the first packet after the cut
        // (whose decoding overlaps the dropped one).
        let recorded = try AudioProbe.samples(path, channels: 1), source = try AudioProbe.samples(clip, channels: 1)
        let after = Array(recorded[(47 * 1024 + 4_800)..<(47 * 1024 + 9_600)])
        let expected = Array(source[(94 * 1024 + 4_800)..<(94 * 1024 + 9_600)])
        let difference = zip(after, expected).map { abs($0 - $1) }.max() ?? 1
        #expect(difference < 1e-4, "the audio after the pause differs from the source's third second by \(difference)")
    }

    /// The top-level (or `from..<to`) ISO-BMFF boxes of `data`: type and byte range.
    static func boxes(in data: Data, from start: Int = 0, to end: Int? = nil) -> [(type: String, start: Int, end: Int)] {
        var boxes: [(String, Int, Int)] = []
        var offset = start
        let limit = min(end ?? data.count, data.count)
        while offset + 8 <= limit {
            let size = data[(data.startIndex + offset)..<(data.startIndex + offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: data[(data.startIndex + offset + 4)..<(data.startIndex + offset + 8)], as: UTF8.self)
            guard size >= 8, offset + size <= limit else { break }  // a box cut short by the kill
            boxes.append((type, offset, offset + size))
            offset += size
        }
        return boxes
    }
}
