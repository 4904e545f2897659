import ELImage
import Foundation

/// A live stream's network side: its own thread (`ELImage.stream`) takes packets from a bounded
/// `LivePacketQueue` and sends them through a `StreamMuxer`, so the encoder never waits for the
/// network. When the server goes away it reconnects with back-off for
/// `LiveStreamOptions.reconnectWindow`, starting the new connection at a keyframe; the queue
/// meanwhile drops whole groups of pictures and counts them. `finish()` sends what is queued
/// (within `closingTimeout`) and closes the stream; both ends join the thread.
final class StreamConnection: Sendable {
    let target: StreamTarget
    private let options: LiveStreamOptions
    private let layout: StreamLayout
    private let interrupt = NetworkInterrupt()
    private let shared: Locked<ConnectionState>
    private let thread: JoinableThread

    /// The queue and the counters, under one lock whose condition the network thread waits on.
    private struct ConnectionState {
        var queue: LivePacketQueue
        var statistics = StreamStatistics()
        var failure: ELImageError?
        /// Set by `finish()`: send what is queued until then, and end.
        var closingDeadline: ContinuousClock.Instant?
        var aborted = false
        var disconnectedSince: ContinuousClock.Instant?
        /// When each video packet still queued was handed over, oldest first (by decoding time),
        /// and how long the last frames sent waited before they were written to the connection
        /// (seconds).
        var handedOver: [(dts: Int64, at: ContinuousClock.Instant)] = []
        var sendDelays = SlidingSamples(capacity: 2048)

        init(queue: LivePacketQueue, address: String) {
            self.queue = queue
            statistics.address = address
        }
    }

    /// Starts the network thread, which connects to `target` (a failure comes out of the next
    /// `send` or `finish`).
    init(target: StreamTarget, layout: StreamLayout, options: LiveStreamOptions) throws {
        self.target = target
        self.options = options
        self.layout = layout
        let shared = Locked(ConnectionState(
            queue: LivePacketQueue(maximumDelay: options.maximumDelay, maximumBytes: options.maximumQueuedBytes),
            address: target.description))
        self.shared = shared
        let interrupt = self.interrupt
        // In the encoder thread's group: the render context's close joins it with the encoder.
        thread = JoinableThread(name: "ELImage.stream", group: JoinableThread.currentGroup) {
            Self.run(target: target, layout: layout, options: options, shared: shared, interrupt: interrupt)
        }
        try thread.start()
    }

    /// A safety net: a connection dropped without `finish()` or `abort()` stops its thread, which
    /// is detached (never waited for here).
    deinit {
        interrupt.abort()
        shared.withCondition { shared in
            shared.aborted = true
            shared.broadcast()
        }
    }

    /// Queues `packet` (the encoder thread); never waits for the network.
    /// - Throws: the failure that ended the stream (a first connection refused, a server that did
    ///   not come back within the reconnect window).
    func send(_ packet: LivePacket) throws {
        try shared.withCondition { shared in
            if let failure = shared.failure { throw failure }
            if case let .video(frame, _) = packet {
                shared.statistics.framesQueued += 1
                shared.handedOver.append((frame.dts, .now))
            }
            shared.queue.push(packet)
            shared.broadcast()
        }
    }

    /// The counters so far (final once `finish()` or `abort()` returned).
    var statistics: StreamStatistics {
        shared.withCondition { shared in
            var statistics = shared.statistics
            statistics.framesDropped = shared.queue.dropped.frames
            statistics.groupsDropped = shared.queue.dropped.groups
            statistics.audioPacketsDropped = shared.queue.dropped.audioPackets
            statistics.highestQueueDelay = shared.queue.highestDelay
            (statistics.sendDelayMedian, statistics.sendDelayP99) = shared.sendDelays.percentiles(50, 99)
            if let since = shared.disconnectedSince { statistics.timeDisconnected += .now - since }
            return statistics
        }
    }

    /// Sends what is queued (for at most `closingTimeout`), closes the stream (RTMP unpublishes,
    /// SRT lingers, HLS writes its playlist's end) and joins the thread. Blocks the calling thread.
    /// - Throws: the failure that ended the stream, if one did.
    func finish() throws {
        shared.withCondition { shared in
            if shared.closingDeadline == nil { shared.closingDeadline = .now + options.closingTimeout }
            shared.broadcast()
        }
        thread.joinBlocking()
        if let failure = shared.withCondition({ $0.failure }) { throw failure }
    }

    /// Stops at once (the frames queued are dropped) and joins the thread.
    func abort() {
        interrupt.abort()
        shared.withCondition { shared in
            shared.aborted = true
            shared.broadcast()
        }
        thread.joinBlocking()
    }

    // MARK: The network thread

    private static func run(target: StreamTarget, layout: StreamLayout, options: LiveStreamOptions,
                            shared: Locked<ConnectionState>, interrupt: NetworkInterrupt) {
        var muxer: StreamMuxer
        do {
            muxer = try StreamMuxer(target: target, layout: layout, options: options, interrupt: interrupt)
        } catch {
            end(with: error, shared: shared)
            return
        }
        shared.withCondition { $0.statistics.isConnected = true }
        // Where this connection's stream starts: its first frame (a keyframe). Sound before it is
        // not sent: FLV takes nothing earlier than its first packet.
        var start: Double?
        while let packet = next(shared) {
            if packet.isVideo, start == nil { start = packet.seconds }
            guard let first = start, packet.isVideo || packet.seconds >= first else {
                shared.withCondition { $0.queue.countLost(packet) }
                continue
            }
            let deadline = shared.withCondition { shared in
                min(.now + options.networkTimeout, shared.closingDeadline ?? .now + options.networkTimeout)
            }
            do {
                try muxer.write(packet, until: deadline)
                shared.withCondition { shared in
                    if case let .video(frame, _) = packet {
                        shared.statistics.framesSent += 1
                        // This frame's, and those dropped before it, leave the front of the list.
                        let passed = shared.handedOver.prefix { $0.dts <= frame.dts }
                        if let handed = passed.last, handed.dts == frame.dts {
                            shared.sendDelays.append((.now - handed.at).timeInterval)
                        }
                        shared.handedOver.removeFirst(passed.count)
                    } else {
                        shared.statistics.audioPacketsSent += 1
                    }
                    shared.statistics.bytesSent += Int64(packet.bytes)
                }
            } catch {
                muxer.abandon()
                let stopping = shared.withCondition { shared in
                    shared.queue.countLost(packet)
                    shared.statistics.isConnected = false
                    shared.disconnectedSince = .now
                    return shared.aborted || shared.closingDeadline != nil
                }
                guard !stopping else { break }
                guard target.isNetwork, options.reconnectWindow > .zero else {
                    end(with: error, shared: shared)
                    return
                }
                guard let again = reconnect(after: error, target: target, layout: layout, options: options,
                                            shared: shared, interrupt: interrupt) else { return }
                muxer = again
                start = nil
            }
        }
        let deadline = shared.withCondition { $0.closingDeadline } ?? .now
        let connected = shared.withCondition { $0.statistics.isConnected }
        if connected {
            do {
                try muxer.close(by: max(deadline, .now + .milliseconds(500)))
            } catch {
                // The last frames may not have arrived: counted, not a failure of the stream.
                shared.withCondition { shared in
                    if shared.failure == nil, !shared.aborted, !interrupt.shouldStop { shared.failure = error as? ELImageError }
                }
            }
        }
        end(with: nil, shared: shared)
    }

    /// The next packet to send; nil when the stream ends (aborted, or finishing with the queue
    /// empty or its time up).
    private static func next(_ shared: Locked<ConnectionState>) -> LivePacket? {
        shared.withCondition { shared in
            while true {
                if shared.aborted { return nil }
                if let deadline = shared.closingDeadline, .now >= deadline { return nil }
                if let packet = shared.queue.popFirst() { return packet }
                if shared.closingDeadline != nil { return nil }
                shared.wait()
            }
        }
    }

    /// Connects again, waiting 0.25 s, then twice as long each time up to 2 s, until the reconnect
    /// window has passed since the connection broke. Nil when it gave up (the failure is set) or
    /// the stream was stopped meanwhile.
    private static func reconnect(after error: Error, target: StreamTarget, layout: StreamLayout, options: LiveStreamOptions,
                                  shared: Locked<ConnectionState>, interrupt: NetworkInterrupt) -> StreamMuxer? {
        let lostAt = ContinuousClock.now
        let giveUp = lostAt + options.reconnectWindow
        var pause = Duration.milliseconds(250)
        var lastError = error
        while true {
            let stopped = shared.withCondition { shared -> Bool in
                let wake = Date(timeIntervalSinceNow: pause.timeInterval)
                while !shared.aborted, shared.closingDeadline == nil, Date() < wake {
                    _ = shared.wait(until: wake)
                }
                return shared.aborted || shared.closingDeadline != nil
            }
            if stopped {
                end(with: nil, shared: shared)
                return nil
            }
            do {
                let muxer = try StreamMuxer(target: target, layout: layout, options: options, interrupt: interrupt)
                shared.withCondition { shared in
                    shared.queue.restartAtKeyframe()
                    shared.statistics.reconnections += 1
                    shared.statistics.isConnected = true
                    if let since = shared.disconnectedSince { shared.statistics.timeDisconnected += .now - since }
                    shared.disconnectedSince = nil
                }
                return muxer
            } catch {
                lastError = error
            }
            if ContinuousClock.now >= giveUp {
                let seconds = options.reconnectWindow.timeInterval
                end(with: ELImageError.network(
                    address: target.description, operation: "stream to",
                    reason: "the connection broke (\(userFacing(error))) and could not be made again within \(String(format: "%g", seconds)) s (last try: \(userFacing(lastError)))",
                    hint: "check that the server runs; LiveStreamOptions.reconnectWindow (--reconnect-for) says how long to keep trying"),
                    shared: shared)
                return nil
            }
            pause = min(pause * 2, .seconds(2))
        }
    }

    private static func userFacing(_ error: Error) -> String {
        if case let ELImageError.network(_, _, reason, _) = error { return reason }
        return "\(error)"
    }

    /// The thread ends: with `error` as the stream's failure (the first one kept); the frames still
    /// queued are counted as dropped.
    private static func end(with error: Error?, shared: Locked<ConnectionState>) {
        shared.withCondition { shared in
            if let error, shared.failure == nil {
                shared.failure = (error as? ELImageError)
                    ?? .network(address: shared.statistics.address, operation: "stream to", reason: "\(error)", hint: "")
            }
            while let packet = shared.queue.popFirst() { shared.queue.countLost(packet) }
            if let since = shared.disconnectedSince { shared.statistics.timeDisconnected += .now - since }
            shared.disconnectedSince = nil
            shared.statistics.isConnected = false
        }
    }
}
