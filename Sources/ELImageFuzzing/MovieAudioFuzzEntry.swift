import ELImage
import ELImageMedia

/// Fuzzes a movie's sound as `elimage run` records it into an `.mp4`: `MovieAudioReader`
/// (libavformat) for the first audio track, copied when it fits MP4 and else decoded and encoded
/// to AAC (`TranscodedAudioTrack`), then every packet read, within the product's `InputLimits`.
enum MovieAudioFuzzEntry: FuzzEntry {
    static func consume(_ bytes: [UInt8]) throws -> Int {
        try FuzzInputFile.with(bytes, suffix: "") { path in
            guard let track = try MovieAudioReader.openForMP4(path: path) else { return 0 }
            defer { track.recordingEnded() }
            let packets = try track.packets(before: MediaTime(value: Int64(Int32.max), timescale: 1), final: true)
            for (number, packet) in packets.enumerated() {
                try FuzzContractViolation.check(
                    !packet.data.isEmpty && packet.timescale > 0,
                    "audio packet \(number) of \(packets.count) holds \(packet.data.count) bytes at timescale \(packet.timescale)")
            }
            return packets.count
        }
    }
}
