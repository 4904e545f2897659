import ELImage
import Foundation

/// What a file sink's worker thread writes each frame with; made at the first frame (when the
/// size is known) and used on the worker thread only.
protocol FrameFileWriting: AnyObject {
    func write(_ buffer: PixelBuffer) throws
    /// Finishes the file and puts it in place.
    func close() throws
    /// Removes the unfinished file; a file already at the path stays as it was.
    func discard()
}

/// The machinery shared by `Y4MOutput` and `RawRGBAFileOutput`: on the render thread, pack the
/// frame's planes on the GPU, fence, queue; on a worker thread with a shared GL context, wait for
/// the fence, read back into a reused buffer and write. The render thread never waits for the
/// disk (only for room in the queue, with the `.wait` policy).
final class FileSinkCore: Sendable {
    enum Message: Sendable {
        case frame(RecordingSession.FrameHandoff, number: Int)
        case finish
    }

    private struct State {
        var closing = false
        var threadStarted = false
        var context: RenderContext?
        var framesIn = 0
        var framesWritten = 0
        var dropped = 0
    }

    let path: String
    let name: String
    let format: PixelFormat
    let colorSpace: ColorSpace?
    /// nil: each frame's own (`TextureFrame.chromaLocation`).
    let chromaLocation: ChromaLocation?
    let chromaDownsampling: ChromaDownsampling
    let policy: EncoderSettings.QueueFullPolicy
    private let queue: EncoderQueue<Message>
    private let state = Locked(State())
    private let result = WorkerOutcome<Int>()
    private let makeWriter: @Sendable (PixelBuffer) throws -> any FrameFileWriting
    private let closeUnused: @Sendable () -> Void

    /// - Parameters:
    ///   - makeWriter: opens the file's writer for the first frame (on the worker thread).
    ///   - closeUnused: called when the sink finishes without a frame.
    init(path: String, name: String, format: PixelFormat, colorSpace: ColorSpace?, chromaLocation: ChromaLocation?,
         chromaDownsampling: ChromaDownsampling = .average, capacity: Int, policy: EncoderSettings.QueueFullPolicy,
         makeWriter: @escaping @Sendable (PixelBuffer) throws -> any FrameFileWriting,
         closeUnused: @escaping @Sendable () -> Void) {
        self.path = path
        self.name = name
        self.format = format
        self.colorSpace = colorSpace
        self.chromaLocation = chromaLocation
        self.chromaDownsampling = chromaDownsampling
        self.policy = policy
        self.makeWriter = makeWriter
        self.closeUnused = closeUnused
        queue = EncoderQueue(capacity: capacity)
    }

    var framesWritten: Int { state.withLock { $0.framesWritten } }
    var dropped: Int { state.withLock { $0.dropped } }

    /// Render thread: queues `frame` for writing.
    func receive(_ frame: TextureFrame, node: any ImageInput & ClosableNode, in context: isolated RenderContext) throws {
        let ticket = state.withLock { state -> (number: Int, startThread: Bool)? in
            guard !state.closing else { return nil }
            state.context = context
            state.framesIn += 1
            defer { state.threadStarted = true }
            return (state.framesIn - 1, !state.threadStarted)
        }
        guard let ticket else { return }
        if ticket.startThread {
            do {
                let thread = try context.makeWorker(name: "ELImage.\(name)") { [self] error in
                    if let error { fail(error, node: node) } else { run(node: node) }
                }
                result.attach(thread)
                context.register(node, stage: .sink)
                try thread.start()
            } catch {
                state.withLock { $0.threadStarted = false }
                fail(error as? ELImageError ?? .invalidState(node: name, reason: "\(error)"), node: node)
                return
            }
        }
        let pending = try context.prepareReadback(of: frame, as: format, colorSpace: colorSpace ?? frame.colorSpace,
                                                  chromaLocation: chromaLocation ?? frame.chromaLocation,
                                                  chromaDownsampling: chromaDownsampling)
        switch queue.push(frame: .frame(RecordingSession.FrameHandoff(pending), number: ticket.number), wait: policy == .wait) {
        case .queued: break
        case .dropped: state.withLock { $0.dropped += 1 }
        case .closed: state.withLock { $0.framesIn -= 1 }
        }
    }

    /// Any thread: no more frames; the worker writes what is queued and closes the file.
    func requestFinish() {
        let unstarted = state.withLock { state -> Bool in
            guard !state.closing else { return false }
            state.closing = true
            return !state.threadStarted
        }
        if unstarted {
            closeUnused()
            end(.success(0))
        } else {
            queue.close(with: .finish)
        }
    }

    /// Waits until the file is finished (or failed) and the worker thread is joined.
    func outcome() async -> Result<Int, ELImageError> {
        await result.value()
    }

    /// Finishes the file and waits for the worker (the node's `close()`); failures were reported.
    func close() async {
        requestFinish()
        _ = await outcome()
    }

    // MARK: Worker thread

    private func run(node: any ImageInput) {
        var buffer: PixelBuffer?
        var writer: (any FrameFileWriting)?
        while let message = queue.pop() {
            switch message {
            case let .frame(handoff, number):
                do {
                    try handoff.take()?.read(into: &buffer, frame: number, file: path)
                    guard let picture = buffer else { continue }
                    if writer == nil { writer = try makeWriter(picture) }
                    try writer?.write(picture)
                    state.withLock { $0.framesWritten += 1 }
                } catch {
                    // The frames written so far are kept; with none, the file is not put in place.
                    if state.withLock({ $0.framesWritten }) > 0 { try? writer?.close() } else { writer?.discard() }
                    fail(RecordingSession.failure(error, frame: number, path: path), node: node)
                    return
                }
            case .finish:
                do {
                    if let writer { try writer.close() } else { closeUnused() }
                } catch {
                    fail(RecordingSession.failure(error, frame: nil, path: path), node: node)
                    return
                }
                end(.success(state.withLock { $0.framesWritten }))
                return
            }
        }
    }

    private func fail(_ error: ELImageError, node: any ImageInput) {
        state.withLock { $0.closing = true }  // no frame is taken in from now on
        queue.close()
        let left = queue.drain().count { if case .frame = $0 { true } else { false } }
        let context = state.withLock { state -> RenderContext? in
            state.closing = true
            state.dropped += left
            return state.context
        }
        context?.report(error, from: node)
        end(.failure(error))
    }

    /// Records the outcome (the worker's last act, when it ran).
    private func end(_ outcome: Result<Int, ELImageError>) {
        state.withLock { $0.closing = true }
        result.record(outcome)
    }
}
