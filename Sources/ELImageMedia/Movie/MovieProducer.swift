import ELImage

/// Decodes a `MovieInput`'s frames, one at a time, on its runner's producer thread: the chosen
/// start or range, turned by the input's orientation, again and again with `loop` (timestamps
/// following on from one pass to the next).
struct MovieProducer: FrameProducer {
    let info: MovieInfo
    let options: MovieInput.Options
    let orientation: Orientation
    private var decoder: MovieDecoder?
    /// What is added to the timestamps of this pass (the length of the passes before).
    private var offset: MediaTime?
    /// The first timestamp and the end of the last frame of this pass.
    private var passStart: MediaTime?, passEnd: MediaTime?
    /// Frames delivered in this run (`options.maximumFrames`).
    private var delivered = 0

    init(info: MovieInfo, options: MovieInput.Options, orientation: Orientation) {
        self.info = info
        self.options = options
        self.orientation = orientation
    }

    mutating func next(_ control: ProducerControl) throws -> ProducedFrame {
        guard let decoder = try openedDecoder(control) else { return .endOfStream }
        while let frame = try decoder.nextFrame() {
            if let range = options.frameRange {
                if frame.number >= range.upperBound { break }
                if frame.number < range.lowerBound { continue }
            }
            var buffer = frame.buffer
            if let duration = options.duration,
               buffer.timestamp >= MediaTimeMath.sum(options.start ?? passStart ?? buffer.timestamp, duration) { break }
            if let maximum = options.maximumFrames, delivered >= maximum { return .endOfStream }
            delivered += 1
            if passStart == nil { passStart = buffer.timestamp }
            passEnd = MediaTimeMath.sum(buffer.timestamp, frame.duration ?? MediaTime(value: 0, timescale: buffer.timestamp.timescale))
            if let offset { buffer.timestamp = MediaTimeMath.sum(buffer.timestamp, offset) }
            return .picture(buffer, orientation: orientation)
        }
        // Another pass: its timestamps follow on from this one's.
        guard options.loop, !control.isCancelled, let passStart, let passEnd else { return .endOfStream }
        let passLength = MediaTimeMath.difference(passEnd, passStart)
        offset = offset.map { MediaTimeMath.sum($0, passLength) } ?? passLength
        (self.passStart, self.passEnd) = (nil, nil)
        do {
            try position(decoder, firstPass: false)
        } catch {
            // Files that cannot seek (raw streams) are opened again.
            self.decoder = try open(control)
        }
        return try next(control)
    }

    /// The decoder, opened and positioned at the first call.
    private mutating func openedDecoder(_ control: ProducerControl) throws -> MovieDecoder? {
        if decoder == nil { decoder = try open(control) }
        return decoder
    }

    private func open(_ control: ProducerControl) throws -> MovieDecoder {
        let decoder = try MovieDecoder(path: info.path, threadCount: options.decoderThreads)
        decoder.colorSpaceOverride = options.colorSpace
        decoder.damageHandler = { error in control.reportDamage(error) }
        try position(decoder, firstPass: true)
        return decoder
    }

    /// Seeks to the start or the range's first frame; on a later pass, back to the beginning.
    private func position(_ decoder: MovieDecoder, firstPass: Bool) throws {
        if let start = options.start {
            try decoder.seek(to: start)
        } else if let first = options.frameRange?.lowerBound, first > 0 {
            try decoder.seek(toFrame: first)
        } else if !firstPass {
            try decoder.seek(toFrame: 0)
        }
    }
}
