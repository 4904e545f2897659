import CFFmpeg
import ELImage
import Foundation

/// Opens a local media file with libavformat as what it claims to be: through the file protocol
/// only, and with no demuxer that reads other files or the network on the file's say-so (HLS and
/// DASH playlists, concat lists, SDP and RTSP descriptions, IMF compositions, filter graphs). A
/// small ".mp4" that is really a playlist naming another file on the machine is refused, not
/// decoded. FFmpeg allocates within `InputLimits`.
enum MovieFileOpening {
    /// The demuxers a file may not choose (each opens what the file names), with what they read.
    static let referencingFormats: [String: String] = [
        "hls": "an HLS playlist", "dash": "a DASH manifest", "webm_dash_manifest": "a WebM DASH manifest",
        "concat": "a concat list", "sdp": "an SDP description", "rtsp": "an RTSP description", "rtp": "an RTP description",
        "imf": "an IMF composition", "lavfi": "a filter graph", "ffmetadata": "an FFmpeg metadata file", "tee": "a tee list",
    ]

    /// The opened file.
    /// - Throws: `ELImageError.io` when it cannot be opened, `ELImageError.malformedMedia` when
    ///   libavformat cannot read it, or it is a playlist or list of other files.
    static func open(_ path: String) throws -> UnsafeMutablePointer<AVFormatContext> {
        try refusePipe(path)
        FFmpegLog.installed()
        _ = InputLimits.current  // FFmpeg's block limit is set on first use
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        av_dict_set(&options, "protocol_whitelist", "file", 0)
        av_dict_set(&options, "format_whitelist", allowedFormats, 0)
        var context: UnsafeMutablePointer<AVFormatContext>?
        let status = avformat_open_input(&context, path, nil, &options)
        guard status >= 0, let context else {
            if let refused = referencingFormat(of: path) {
                throw ELImageError.malformedMedia(
                    file: path, frame: nil,
                    reason: "it is \(refused), which names other files or addresses to read, not a movie: ELImage opens media files only")
            }
            throw FFmpegError.openFailure(status, path: path)
        }
        return context
    }

    /// Throws for a FIFO or a socket: a movie is opened more than once (its header, its pictures,
    /// its sound), and a second open of a pipe would wait for a writer that has gone, or read
    /// from the middle of the stream.
    private static func refusePipe(_ path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else { return }  // avformat_open_input says why
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFIFO || kind == S_IFSOCK, let what = SpecialFileKind.name(of: info.st_mode) else { return }
        throw ELImageError.invalidInput(
            what: "\(path) is \(what), not a file: a movie is opened more than once (for its header, its pictures and its sound), which a pipe cannot give",
            hint: "write the movie to a file first, or send the pictures through the pipe as Y4M (ffmpeg -f yuv4mpegpipe), which ELImage reads once")
    }

    /// Every demuxer of this FFmpeg but the referencing ones, as libavformat's `format_whitelist`.
    private static let allowedFormats: String = {
        var names: [String] = []
        var state: UnsafeMutableRawPointer?
        while let demuxer = av_demuxer_iterate(&state) {
            let name = String(cString: demuxer.pointee.name)
            // A demuxer's name may list aliases ("mov,mp4,m4a,3gp,3g2,mj2"): refused if any is.
            let aliases = name.split(separator: ",").map(String.init)
            if aliases.allSatisfy({ referencingFormats[$0] == nil }) { names.append(contentsOf: aliases) }
        }
        return names.joined(separator: ",")
    }()

    /// What the file at `path` is, when libavformat would pick a referencing demuxer for it.
    private static func referencingFormat(of path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var head = [UInt8](handle.readData(ofLength: 4096))
        head += [UInt8](repeating: 0, count: Int(AVPROBE_PADDING_SIZE))
        return path.withCString { name in
            head.withUnsafeMutableBufferPointer { buffer -> String? in
                var probe = AVProbeData(filename: name, buf: buffer.baseAddress, buf_size: Int32(buffer.count) - AVPROBE_PADDING_SIZE,
                                        mime_type: nil)
                guard let format = av_probe_input_format(&probe, 1) else { return nil }
                let names = String(cString: format.pointee.name).split(separator: ",").map(String.init)
                return names.lazy.compactMap { referencingFormats[$0] }.first
            }
        }
    }
}
