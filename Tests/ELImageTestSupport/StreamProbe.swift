import Foundation

/// ffprobe and ffmpeg as oracles for what a live stream delivered.
package enum StreamProbe {
    /// The packets of the video and audio streams of `path` (a file or an HTTP address).
    package static func packetCounts(_ path: String) throws -> (video: Int, audio: Int, videoCodec: String, audioCodec: String) {
        let text = String(decoding: try runTool("ffprobe", ["-v", "error", "-count_packets", "-show_entries",
                                                            "stream=codec_type,codec_name,nb_read_packets", "-of", "csv=p=1", path]),
                          as: UTF8.self)
        var result = (video: 0, audio: 0, videoCodec: "", audioCodec: "")
        // One line a stream ("stream,NAME,TYPE,PACKETS"); MPEG-TS lists its streams again under
        // its program ("program,stream,..."), which is not counted twice.
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: ",").map(String.init)
            guard fields.count >= 4, fields[0] == "stream" else { continue }
            let (name, type, count) = (fields[1], fields[2], Int(fields[3]) ?? 0)
            if type == "video" { (result.video, result.videoCodec) = (result.video + count, name) }
            if type == "audio" { (result.audio, result.audioCodec) = (result.audio + count, name) }
        }
        return result
    }

    /// The codecs of the video and audio streams of `path`, from the start of the stream only (a
    /// live HLS playlist is not read to its end).
    package static func codecs(_ path: String) throws -> (video: String, audio: String) {
        let text = String(decoding: try runTool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,codec_name",
                                                            "-of", "csv=p=1", path]), as: UTF8.self)
        var result = (video: "", audio: "")
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: ",").map(String.init)
            guard fields.count >= 3, fields[0] == "stream" else { continue }
            if fields[2] == "video" { result.video = fields[1] }
            if fields[2] == "audio" { result.audio = fields[1] }
        }
        return result
    }

    /// Decodes every frame of `path`; throws with ffmpeg's message at the first decoding error
    /// (a frame sent without the frames it refers to, a damaged packet).
    package static func decodeCleanly(_ path: String) throws {
        let (errors, status) = try runToolCapturingErrors("ffmpeg", ["-nostdin", "-v", "error", "-xerror", "-i", path, "-f", "null", "-"])
        if !errors.isEmpty || status != 0 { throw ToolFailure(tool: "ffmpeg", status: status, message: "decoding \(path): \(errors)") }
    }

    /// Whether the first video packet of `path` is a keyframe.
    package static func startsWithKeyframe(_ path: String) throws -> Bool {
        let text = String(decoding: try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-read_intervals", "%+#1",
                                                            "-show_entries", "packet=flags", "-of", "csv=p=0", path]), as: UTF8.self)
        return text.split(separator: "\n").first?.hasPrefix("K") == true
    }

    /// The durations (seconds) of the video and audio streams, from their packets' times.
    package static func durations(_ path: String) throws -> (video: Double, audio: Double) {
        func end(_ stream: String) throws -> Double {
            let text = String(decoding: try runTool("ffprobe", ["-v", "error", "-select_streams", stream, "-show_entries",
                                                                "packet=pts_time,duration_time", "-of", "csv=p=0", path]), as: UTF8.self)
            let times = text.split(separator: "\n").compactMap { line -> (Double, Double)? in
                let parts = line.split(separator: ",").map { Double($0) ?? 0 }
                return parts.count >= 2 ? (parts[0], parts[1]) : parts.first.map { ($0, 0) }
            }
            guard let first = times.map(\.0).min(), let last = times.map({ $0.0 + $0.1 }).max() else { return 0 }
            return last - first
        }
        return (try end("v:0"), try end("a:0"))
    }
}

/// Runs a tool and returns what it wrote on standard error, and its exit status.
package func runToolCapturingErrors(_ tool: String, _ arguments: [String]) throws -> (errors: String, status: Int32) {
    // The shell sends the tool's standard error where standard output went, drops its output,
    // and says its status last.
    let text = String(decoding: try runTool("sh", ["-c", "\"$0\" \"$@\" 2>&1 >/dev/null; echo \"[exit $?]\"", tool] + arguments),
                      as: UTF8.self)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty }
    let status = lines.last.flatMap { Int32($0.dropFirst(6).dropLast()) } ?? -1
    return (lines.dropLast().joined(separator: "\n"), status)
}
