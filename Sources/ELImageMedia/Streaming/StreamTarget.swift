import ELImage
import Foundation

/// Where a live stream goes, told by its address: an RTMP server (`rtmp://`, `rtmps://`: FLV),
/// an SRT listener (`srt://`: MPEG-TS) or an HLS playlist on disk (`DIR/index.m3u8`: segments
/// beside it, served by any web server).
public struct StreamTarget: Sendable, Equatable, CustomStringConvertible {
    /// The protocol, and what the stream is packed in.
    public enum Kind: Sendable, Equatable {
        /// RTMP or RTMPS, H.264 and AAC in FLV (YouTube, Twitch, nginx-rtmp, OBS's "custom server").
        case rtmp
        /// SRT in caller mode, H.264 and AAC in MPEG-TS.
        case srt
        /// HLS: a playlist rewritten as each segment completes.
        case hls(HLSSegmentType)
    }

    /// What HLS segments hold.
    public enum HLSSegmentType: String, Sendable, Equatable, CaseIterable {
        /// MPEG-TS segments (`.ts`): every HLS player.
        case mpegts
        /// Fragmented MP4 segments (`.m4s`, with `init.mp4`): HLS version 7, smaller.
        case fmp4
    }

    /// The address as given (its secrets are never printed: see `description`).
    public let url: String
    public let kind: Kind

    /// The target `url` names: `rtmp://`/`rtmps://`, `srt://`, or a path ending in `.m3u8` (its
    /// segments of `hlsSegments`). Nil for anything else (a file).
    public init?(_ url: String, hlsSegments: HLSSegmentType = .mpegts) {
        let lowered = url.lowercased()
        if lowered.hasPrefix("rtmp://") || lowered.hasPrefix("rtmps://") {
            kind = .rtmp
        } else if lowered.hasPrefix("srt://") {
            kind = .srt
        } else if lowered.hasSuffix(".m3u8"), !lowered.contains("://") {
            kind = .hls(hlsSegments)
        } else {
            return nil
        }
        self.url = url
    }

    /// The target `url` names, or an error saying which addresses work.
    /// - Throws: `ELImageError.invalidInput` for an address that is not a stream's.
    public init(validating url: String, hlsSegments: HLSSegmentType = .mpegts) throws {
        guard let target = StreamTarget(url, hlsSegments: hlsSegments) else {
            throw ELImageError.invalidInput(what: "'\(AddressRedaction.redact(url))' is not a live stream's address",
                                            hint: "give rtmp://HOST[:PORT]/APP/KEY, rtmps://…, srt://HOST:PORT or DIR/index.m3u8")
        }
        self = target
    }

    /// Why the target cannot be written, or nil: an HLS path with a `%`, which libavformat's HLS
    /// muxer takes for a segment-number pattern (it has no escape for it).
    public var pathProblem: String? {
        guard case .hls = kind, url.contains("%") else { return nil }
        return "libavformat's HLS muxer reads '%' in the path as a segment number pattern; choose a folder and name without '%'"
    }

    /// Whether `output` is a stream's address rather than a file's.
    public static func names(_ output: String) -> Bool { StreamTarget(output) != nil }

    /// libavformat's muxer for the target.
    var muxerName: String {
        switch kind {
        case .rtmp: "flv"
        case .srt: "mpegts"
        case .hls: "hls"
        }
    }

    /// Whether the target goes over the network (and so can go away and come back).
    public var isNetwork: Bool {
        if case .hls = kind { false } else { true }
    }

    /// The address without what may be secret (`AddressRedaction`): user info, an RTMP stream
    /// key, an SRT passphrase or stream id and other keys in the query are shown as `…`.
    public var description: String {
        if case .hls = kind { return url }
        return AddressRedaction.redact(url)
    }
}
