/// Makes the pictures of a source, one at a time, on the thread its `SourceRunner` owns: a
/// decoder reading a file, a reader of Y4M or raw YUV, a still picture repeated.
///
/// `next` may block (reads, decoding) for as long as it takes; it is never called on Swift's
/// cooperative threads. A producer that blocks for long checks `control.isCancelled` and returns
/// `.endOfStream` once it is set.
public protocol FrameProducer {
    /// The next picture, or `.endOfStream` when the stream has ended (or the run was cancelled).
    /// Damage the producer recovered from goes to `control.reportDamage(_:)`; a thrown error ends
    /// the run: the frames before it are delivered, then end-of-stream, and `run` throws it.
    mutating func next(_ control: ProducerControl) throws -> ProducedFrame
}

/// What a `FrameProducer` made.
public enum ProducedFrame: Sendable {
    /// A picture, turned by `orientation` on its way into the graph.
    case picture(PixelBuffer, orientation: Orientation = .up)
    /// The stream has ended.
    case endOfStream
}

/// What a producer may ask of its runner while it works.
public struct ProducerControl: Sendable {
    let queue: SourceQueue
    /// Changes the run's counters (and says what it newly dropped).
    let counter: @Sendable (_ change: (inout SourceStatistics) -> Void) -> Void

    /// True once the run is cancelled or has failed: the producer should stop and return
    /// `.endOfStream`.
    public var isCancelled: Bool { queue.isCancelled }

    /// Reports damage the producer recovered from (a concealed frame, a rejected packet): counted
    /// in `SourceStatistics.damaged` and a `.failed` event on the context's stream, in order with
    /// the frames; the run goes on.
    public func reportDamage(_ error: any Error) {
        queue.post(.damage(error))
    }

    /// Reports `error` as a `.failed` event, in order with the frames, without counting it (a
    /// camera's device failure before it ends the stream).
    package func report(_ error: any Error) {
        queue.post(.report(error))
    }

    /// Changes the run's counters (a camera's own counts: frames it discarded for newer ones,
    /// damaged frames it does not report, driver skips, intervals).
    package func count(_ change: (inout SourceStatistics) -> Void) {
        counter(change)
    }
}
