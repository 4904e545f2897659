/// The sound a recording keeps beside its frames (`VideoEncoder.start(recordingTo:audio:)`).
public enum RecordingSound: Sendable {
    /// The sound of the source whose frame starts the recording: a movie's first audio track
    /// (`MovieInput.sound`), copied, or encoded to AAC when MP4 cannot hold its codec, on the
    /// frames' clock from the recording's first frame and cut where its video ends. Nothing for a
    /// source without sound (a camera, a picture, a Y4M file) or a raw `.h264` stream. The default.
    case fromSource
    /// No sound track.
    case off
    /// This track, on the frames' clock: a microphone (`PulseAudioCapture`), another file's sound
    /// (`MovieAudioReader`), a source of your own. MP4, or WebM and Matroska (`FileOutput.encoded`).
    case track(any AudioTrackSource)
}

/// A source whose frames' recordings keep its sound by default (`RecordingSound.fromSource`):
/// the recording asks the source of its first frame (`FrameOrigin`).
protocol SoundCarryingSource: AnyObject {
    /// Opens the sound for one recording as `fit` takes it (called on the writer's thread at the
    /// recording's first frame); nil when the source has none.
    func sound(fitting fit: SoundFit) -> (@Sendable () throws -> (any AudioTrackSource)?)?
}
