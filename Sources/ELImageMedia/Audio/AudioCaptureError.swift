import ELImage

/// Why sound cannot be captured: each case says what failed and what to do.
public enum AudioCaptureError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No PulseAudio (or PipeWire) server answered.
    case noServer(server: String, reason: String)
    /// The server has no such source.
    case noDevice(name: String, available: [String])
    /// The device or the server went away while recording.
    case deviceVanished(name: String, reason: String)
    /// The device's or the encoder's format cannot be used.
    case unsupportedFormat(what: String, reason: String)

    public var description: String {
        switch self {
        case let .noServer(server, reason):
            "no sound server at \(server) (\(reason)): start PulseAudio or PipeWire (pipewire-pulse), or set PULSE_SERVER; record without --audio for video only (\(DocumentationPage.sound.pointer))"
        case let .noDevice(name, available):
            "no sound source '\(name)'; the server has: \(available.isEmpty ? "none" : available.joined(separator: ", ")) (see elimage audio-devices)"
        case let .deviceVanished(name, reason):
            "the sound source '\(name)' went away while recording (\(reason)); the sound stops there, the video goes on"
        case let .unsupportedFormat(what, reason):
            "\(what) cannot be used: \(reason)"
        }
    }
}
