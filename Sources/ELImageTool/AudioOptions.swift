import ArgumentParser
import ELImage
import ELImageMedia

/// `elimage run`'s sound options: a movie's audio track is kept in an .mp4 output unless
/// --no-audio says otherwise.
struct AudioOptions: ParsableArguments {
    @Flag(name: .customLong("no-audio"), help: "Leave sound out: an .mp4 output keeps a movie input's audio track unless this is given.")
    var noAudio = false

    /// The sound track to record beside the video of `input` into `output`, or nil: a movie's
    /// first audio track (stream copy) when the output is an MP4 file.
    func track(for input: MediaSource, output: OutputKind?) throws -> (any AudioTrackSource)? {
        guard !noAudio, case .video(let path)? = output, case .mp4 = ContainerFormat.forPath(path) else { return nil }
        guard case .movie(let movie) = input.kind, let reader = try MovieAudioReader.open(path: movie) else { return nil }
        guard reader.format.fitsInMP4 else {
            reader.close()
            Terminal.say("note: the \(reader.format.codecName) sound of \(movie) cannot be copied into \(path); writing video only")
            return nil
        }
        return reader
    }
}
