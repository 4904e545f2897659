import ELImage
import Foundation

/// A sink that saves a still picture of the stream on request, while everything else keeps
/// running: the still-photo button.
///
/// ```swift
/// let snapshot = Snapshot()
/// camera --> beauty --> encoder
/// beauty --> snapshot
/// let photo = try await snapshot.capture(to: "photo.jpg")              // the next frame
/// let later = try await snapshot.capture(to: "t5.png", at: MediaTime(value: 5, timescale: 1))
/// ```
///
/// The frame captured is packed, fenced and read back on a thread of its own (a `ReadbackSink`
/// with a one-shot writer), where the picture is encoded (libpng, libturbojpeg) and written.
/// Frames that are not captured cost nothing.
public final class Snapshot: ImageInput, ClosableNode, Sendable {
    /// The picture file's format.
    public enum Format: Sendable, Equatable {
        /// Lossless 8-bit RGBA PNG.
        case png
        /// JPEG at `quality` 1...100 (4:2:0).
        case jpeg(quality: Int)

        /// `.jpeg(quality: 90)` for `.jpg`/`.jpeg` paths, else `.png`.
        public static func forPath(_ path: String) -> Format {
            let lowered = path.lowercased()
            return lowered.hasSuffix(".jpg") || lowered.hasSuffix(".jpeg") ? .jpeg(quality: 90) : .png
        }
    }

    /// A picture that was saved.
    public struct Capture: Sendable, Equatable {
        /// The file written.
        public let path: String
        /// The timestamp of the frame it shows.
        public let timestamp: MediaTime
        public let width: Int
        public let height: Int
        public let format: Format
    }

    private struct Request: Sendable {
        let id: UInt64
        let path: String
        let format: Format
        let time: MediaTime?
        let continuation: CheckedContinuation<WrittenSnapshot, Never>
    }

    /// A request's outcome.
    private struct WrittenSnapshot: Sendable {
        let outcome: Result<Capture, any Error>
    }

    private struct SnapshotState {
        var next: UInt64 = 0
        var pending: [Request] = []
        /// The sinks writing pictures, by request, until their callers joined them.
        var writing: [UInt64: ReadbackSink] = [:]
        var closed = false
    }

    public let inputSlots = InputSlots(count: 1)
    private let state = Locked(SnapshotState())
    /// Registered with the context of the first frame, whose `close()` then closes this node.
    private let registered = Locked(false)

    public init() {}

    /// Saves the next frame that arrives (or, with `time`, the first one stamped at or after it)
    /// to `path`, and returns once the file is written and the thread that wrote it has ended.
    ///
    /// - Parameters:
    ///   - path: the picture file to write.
    ///   - format: `nil` picks from the extension (`.jpg`/`.jpeg`: JPEG quality 90, else PNG).
    ///   - time: `nil` takes the next frame; else the first frame stamped at or after it.
    /// - Throws: `ELImageError.io` when the file cannot be written; `ELImageError.invalidInput`
    ///   for a JPEG quality outside 1...100; `ELImageError.invalidState` when the stream ends
    ///   before a frame comes; `ELImageError.closed` when the snapshot (its context) was closed
    ///   first; `CancellationError` when the calling task is cancelled first.
    @discardableResult
    public func capture(to path: String, format: Format? = nil, at time: MediaTime? = nil) async throws -> Capture {
        let format = format ?? .forPath(path)
        if case let .jpeg(quality) = format, !(1...100).contains(quality) {
            throw ELImageError.invalidInput(what: "JPEG quality \(quality) is out of range",
                                            hint: "give a quality from 1 to 100 (90 is a good default)")
        }
        let id = state.withLock { state -> UInt64 in
            state.next += 1
            return state.next
        }
        let written = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let refusal = state.withLock { state -> (any Error)? in
                    if Task.isCancelled { return CancellationError() }
                    if state.closed { return ELImageError.closed(what: "the snapshot of \(path)") }
                    state.pending.append(Request(id: id, path: path, format: format, time: time, continuation: continuation))
                    return nil
                }
                if let refusal { continuation.resume(returning: WrittenSnapshot(outcome: .failure(refusal))) }
            }
        } onCancel: {
            let request = state.withLock { state -> Request? in
                guard let index = state.pending.firstIndex(where: { $0.id == id }) else { return nil }
                return state.pending.remove(at: index)
            }
            request?.continuation.resume(returning: WrittenSnapshot(outcome: .failure(CancellationError())))
        }
        // The thread that wrote the picture has ended before the caller hears.
        if let sink = state.withLock({ $0.writing.removeValue(forKey: id) }) { _ = await sink.outcome() }
        return try written.outcome.get()
    }

    /// Requests waiting for a frame.
    public var pendingCount: Int { state.withLock { $0.pending.count } }

    /// Fails the requests still waiting for a frame and joins the threads writing pictures.
    /// Called by the render context's `close()`; idempotent.
    public func close() async {
        let (left, writing) = state.withLock { state in
            state.closed = true
            defer { state.pending = [] }
            return (state.pending, Array(state.writing.values))
        }
        for request in left {
            request.continuation.resume(returning: WrittenSnapshot(outcome: .failure(ELImageError.closed(
                what: "the snapshot of \(request.path) (closed before a frame arrived)"))))
        }
        for sink in writing { _ = await sink.outcome() }
    }

    public func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        if registered.withLock({ first in defer { first = true }; return !first }) { context.register(self, stage: .sink) }
        let due = state.withLock { state -> [Request] in
            guard !state.pending.isEmpty else { return [] }
            let due = state.pending.filter { $0.time.map { frame.timestamp >= $0 } ?? true }
            state.pending.removeAll { request in due.contains { $0.id == request.id } }
            return due
        }
        guard !due.isEmpty else { return }
        guard frame.format.holdsPicture else {
            let error = ELImageError.invalidInput(what: "Snapshot got a \(frame.format) frame",
                                                  hint: "connect it after a node that outputs RGBA")
            due.forEach { $0.continuation.resume(returning: WrittenSnapshot(outcome: .failure(error))) }
            throw error
        }
        // Encoding a PNG or JPEG takes milliseconds to tens of them: not on the render thread.
        let unanswered = Locked(due)
        /// Answers the requests the writer did not (the readback or conversion failed) with why.
        let answer: @Sendable (any Error) -> Void = { error in
            let left = unanswered.withLock { left in defer { left = [] }; return left }
            left.forEach { $0.continuation.resume(returning: WrittenSnapshot(outcome: .failure(error))) }
        }
        let timestamp = frame.timestamp
        let sink = ReadbackSink(
            .init(path: due.map(\.path).joined(separator: ", "), threadName: "snapshot", format: .rgba,
                  chromaLocation: .left, capacity: 1),
            open: { _ in PictureWriter(unanswered, timestamp: timestamp) },
            onEnd: { result, _ in
                if case let .failure(error) = result { answer(error) } else {
                    answer(ELImageError.invalidState(node: "Snapshot", reason: "the frame was not read back"))
                }
            })
        state.withLock { state in
            for request in due { state.writing[request.id] = sink }
        }
        do {
            try sink.take(frame, time: 0, owner: self, in: context)
        } catch {
            answer(error)
            sink.requestCancel()
            throw error
        }
        sink.requestFinish()
    }

    public func endOfStream(at index: Int, in context: isolated RenderContext) {
        let left = state.withLock { state -> [Request] in
            defer { state.pending = [] }
            return state.pending
        }
        for request in left {
            let when = request.time.map { "at or after \($0.seconds) s" } ?? ""
            request.continuation.resume(returning: WrittenSnapshot(outcome: .failure(ELImageError.invalidState(
                node: "Snapshot", reason: "the stream ended before a frame \(when) arrived for \(request.path)"))))
        }
    }

    /// Writes the one frame read back to each request's picture file and answers the request.
    private final class PictureWriter: FrameWriter {
        private let requests: Locked<[Request]>
        private let timestamp: MediaTime

        init(_ requests: Locked<[Request]>, timestamp: MediaTime) {
            self.requests = requests
            self.timestamp = timestamp
        }

        func write(_ buffer: inout PixelBuffer, time: Int64, frame number: Int) throws -> FrameWriteVerdict {
            let image = RGBAImage(width: buffer.width, height: buffer.height, pixels: buffer.data, timestamp: timestamp)
            let due = requests.withLock { left in defer { left = [] }; return left }
            for request in due {
                let outcome = Result<Capture, any Error> {
                    switch request.format {
                    case .png: try PNGFile.write(image, to: request.path)
                    case let .jpeg(quality): try JPEGFile.write(image, to: request.path, quality: quality)
                    }
                    return Capture(path: request.path, timestamp: image.timestamp, width: image.width,
                                   height: image.height, format: request.format)
                }
                request.continuation.resume(returning: WrittenSnapshot(outcome: outcome))
            }
            return .more
        }

        // Each picture file is staged and put in place by `PNGFile`/`JPEGFile` themselves.
        func finish() {}
        func publish() {}
        func salvage(after error: ELImageError) {}
        func discard() {}
    }
}

extension Snapshot: PlanDescribing {
    package var planSummary: String {
        "no pass between captures; a capture reads its frame back and encodes it on a worker of its own"
    }
}
