import ArgumentParser
import ELImage
import ELImageCommandLine
import ELImageKit
import ELImageMedia

/// `elimage run`'s sound options: a movie's audio track is kept in an .mp4 output unless
/// --no-audio says otherwise; --audio records a sound source beside a live input.
struct AudioOptions: ParsableArguments {
    @Flag(name: .customLong("no-audio"), help: "Leave sound out: an .mp4 output keeps a movie input's audio track unless this is given.")
    var noAudio = false

    @Option(name: .customLong("audio"), help: ArgumentHelp(
        "Record sound from SOURCE (a name from `elimage audio-devices`, or default) with a live input (a camera, or a file with --realtime).",
        discussion: "A trailing ? (default?) makes it optional: without a sound server the recording goes on without sound and says so once."))
    var source: String?

    @Option(name: .customLong("audio-codec"), help: "Codec of recorded sound (default aac).")
    var codec: AudioCodec?

    @Option(name: .customLong("audio-bitrate"), parsing: .unconditional, help: "Bitrate of recorded sound in kbit/s (default 128).")
    var bitrate: Int?

    @Option(name: .customLong("audio-rate"), parsing: .unconditional, help: "Sample rate of recorded sound in Hz (default 48000; Opus is always 48000).")
    var rate: Int?

    @Option(name: .customLong("audio-channels"), parsing: .unconditional, help: "Channels of recorded sound (default: the source's, at most 2).")
    var channels: Int?

    @Flag(name: .customLong("realtime"), help: "Pace a file input at its frame rate, as a camera would deliver it (like ffmpeg -re).")
    var realTime = false

    /// The sound to record beside the video of `input` into `output`: the sound source of --audio
    /// (captured on the frames' clock), none with --no-audio, else the library's default, the
    /// input's own sound (a movie's first audio track: stream copy, or AAC when MP4 cannot hold
    /// its codec, which is said here).
    /// A live stream (`paced`: the file input is paced in real time for it) takes its sound as AAC.
    func sound(for input: MediaSource, output: OutputKind?, context: RenderContext, events: EventLog,
               paced: Bool = false) throws -> RecordingSound {
        guard !noAudio else { return .off }
        let name: String
        /// The codecs of sound the output holds, the default first.
        var codecs = AudioCodec.allCases
        switch output {
        case .video(let path)? where ContainerFormat.forPath(path) == .mp4(): name = path
        case .stream(let target)?:
            name = target.description
            codecs = [.aac]
        case .encoded(let path, let container)?:
            guard let codec = container.soundCodec else {
                if let source { throw UsageError("--audio \(source): a .\(container.rawValue) file (\(path)) holds no sound; record into .webm, .mkv or .mp4") }
                return .off
            }
            name = path
            codecs = [codec] + AudioCodec.allCases.filter { $0 != codec && container.copiesSound(codecNamed: $0.rawValue) }
        case .virtualCamera(let path)?:
            if let source {
                throw UsageError("--audio \(source): a virtual camera (\(path)) carries video only; record sound into a .mp4 or a stream")
            }
            return .off
        default: return .fromSource
        }
        if let source {
            return try capture(source, for: input, context: context, events: events, paced: paced, into: name, codecs: codecs)
                .map(RecordingSound.track) ?? .off
        }
        if case .movie(let movie) = input.kind, let sound = (input.node as? MovieInput)?.sound {
            if case .stream = output, sound.codecName != "aac" {
                Terminal.say("note: the stream carries AAC: encoding the \(sound.codecName) sound of \(movie) to AAC")
            } else if case .encoded(_, let container)? = output, let codec = container.soundCodec, !container.copiesSound(codecNamed: sound.codecName) {
                Terminal.say("note: the \(sound.codecName) sound of \(movie) cannot be copied into \(name): encoding it to \(codec.rawValue)")
            } else if case .video? = output, !sound.fitsInMP4 {
                Terminal.say("note: the \(sound.codecName) sound of \(movie) cannot be copied into \(name): encoding it to AAC")
            }
        }
        return .fromSource
    }

    /// Starts capturing `source` ("NAME" or "NAME?"), its clock anchored at the input's first frame.
    /// `codecs`: those the output (`output`) holds, the default first.
    private func capture(_ source: String, for input: MediaSource, context: RenderContext, events: EventLog, paced: Bool,
                         into output: String, codecs: [AudioCodec]) throws -> (any AudioTrackSource)? {
        let optional = source.hasSuffix("?")
        let name = optional ? String(source.dropLast()) : source
        if case .camera = input.kind {} else if !realTime, !paced {
            throw UsageError("--audio \(source) records live sound: give a camera, or pace the file with --realtime")
        }
        var options = PulseAudioCapture.Options(device: name.isEmpty ? "default" : name, clock: MediaClock())
        options.codec = codecs.first ?? options.codec
        if let codec {
            guard codecs.contains(codec) else {
                let held = codecs.map { $0 == .aac ? "AAC" : "Opus" }.joined(separator: " or ")
                throw UsageError("--audio-codec \(codec.rawValue): \(output) carries \(held) sound; leave --audio-codec out")
            }
            options.codec = codec
        }
        if let bitrate {
            guard (8...512).contains(bitrate) else { throw UsageError("--audio-bitrate \(bitrate): use 8...512 kbit/s") }
            options.bitrate = bitrate * 1000
        }
        if let rate {
            guard [8000, 16000, 22050, 24000, 32000, 44100, 48000].contains(rate) else {
                throw UsageError("--audio-rate \(rate): use 8000, 16000, 22050, 24000, 32000, 44100 or 48000")
            }
            options.sampleRate = rate
        }
        if let channels {
            guard (1...2).contains(channels) else { throw UsageError("--audio-channels \(channels): use 1 or 2") }
            options.channels = channels
        }
        let capture: PulseAudioCapture
        do {
            capture = try PulseAudioCapture(options: options)
        } catch {
            guard optional else { throw ToolFailure("--audio \(name): \(error)") }
            Terminal.say("note: recording without sound: \(error)")
            return nil
        }
        context.register(capture, stage: .sink)
        // A source that vanishes ends the sound, not the run: its failure is a note.
        events.listen(to: capture, failuresAreNotes: true) { event in
            if case .failed(let failure) = event { Terminal.say("note: \(failure.error)") }
        }
        // A camera says when each frame was captured: the sound lines up with that, not with delivery.
        input.node.addTarget(MediaClockAnchor(clock: options.clock, timing: input.node as? CaptureTiming))
        Terminal.say("recording sound from \(capture.device.name) (\(options.codec.rawValue))")
        return capture
    }
}
