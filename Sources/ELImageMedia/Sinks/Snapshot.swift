import ELImage
import Foundation
import Synchronization

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
/// The frame is read back on the render thread (one RGBA copy, only for the frame captured);
/// encoding (libpng, libturbojpeg) and writing happen on a thread of their own. Frames that are
/// not captured cost nothing.
public final class Snapshot: ImageInput, ClosableNode, @unchecked Sendable {
    // @unchecked Sendable: the requests live behind a lock.

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

    private struct Request {
        let id: UInt64
        let path: String
        let format: Format
        let time: MediaTime?
        let continuation: CheckedContinuation<Written, Never>
    }

    /// A request's outcome, and the thread that wrote it (joined by the caller before it hears).
    private struct Written: Sendable {
        let outcome: Result<Capture, any Error>
        var writer: JoinableThread?
    }

    private struct State {
        var next: UInt64 = 0
        var pending: [Request] = []
        /// Threads writing pictures, until their callers joined them.
        var writers: [ObjectIdentifier: JoinableThread] = [:]
        var closed = false
    }

    public let inputSlots = InputSlots(count: 1)
    private let state = Locked(State())
    /// Registered with the context of the first frame, whose `close()` then closes this node.
    private let registered = Atomic<Bool>(false)

    public init() {}

    /// Saves the next frame that arrives (or, with `time`, the first one stamped at or after it)
    /// to `path`, and returns once the file is written and the thread that wrote it has ended.
    ///
    /// - Parameters:
    ///   - format: `nil` picks from the extension (`.jpg`/`.jpeg`: JPEG quality 90, else PNG).
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
                if let refusal { continuation.resume(returning: Written(outcome: .failure(refusal))) }
            }
        } onCancel: {
            let request = state.withLock { state -> Request? in
                guard let index = state.pending.firstIndex(where: { $0.id == id }) else { return nil }
                return state.pending.remove(at: index)
            }
            request?.continuation.resume(returning: Written(outcome: .failure(CancellationError())))
        }
        if let writer = written.writer {
            await writer.join()
            _ = state.withLock { $0.writers.removeValue(forKey: ObjectIdentifier(writer)) }
        }
        return try written.outcome.get()
    }

    /// Requests waiting for a frame.
    public var pendingCount: Int { state.withLock { $0.pending.count } }

    /// Fails the requests still waiting for a frame and joins the threads writing pictures.
    /// Called by the render context's `close()`; idempotent.
    public func close() async {
        let (left, writers) = state.withLock { state in
            state.closed = true
            defer { state.pending = [] }
            return (state.pending, Array(state.writers.values))
        }
        for request in left {
            request.continuation.resume(returning: Written(outcome: .failure(ELImageError.closed(
                what: "the snapshot of \(request.path) (closed before a frame arrived)"))))
        }
        for writer in writers { await writer.join() }
    }

    public func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        if !registered.exchange(true, ordering: .acquiringAndReleasing) { context.register(self, stage: .sink) }
        let due = state.withLock { state -> [Request] in
            guard !state.pending.isEmpty else { return [] }
            let due = state.pending.filter { $0.time.map { frame.timestamp >= $0 } ?? true }
            state.pending.removeAll { request in due.contains { $0.id == request.id } }
            return due
        }
        guard !due.isEmpty else { return }
        func fail(_ error: any Error) -> any Error {
            due.forEach { $0.continuation.resume(returning: Written(outcome: .failure(error))) }
            return error
        }
        guard frame.format == .rgba8 else {
            throw fail(ELImageError.invalidInput(what: "Snapshot got a \(frame.format) frame",
                                                 hint: "connect it after a node that outputs RGBA"))
        }
        var buffer = try PixelBuffer(format: .rgba, width: frame.width, height: frame.height)
        do {
            try context.readPixels(of: frame, into: &buffer)
        } catch {
            throw fail(error)
        }
        let image = RGBAImage(width: frame.width, height: frame.height, pixels: buffer.data, timestamp: frame.timestamp)
        // Encoding a PNG or JPEG takes milliseconds to tens of them: not on the render thread.
        let slot = Locked<JoinableThread?>(nil)
        let writer = JoinableThread(name: "ELImage.snapshot", group: context.threads) {
            let thread = slot.withLock { $0 }
            for request in due {
                let outcome = Result<Capture, any Error> {
                    switch request.format {
                    case .png: try PNGFile.write(image, to: request.path)
                    case let .jpeg(quality): try JPEGFile.write(image, to: request.path, quality: quality)
                    }
                    return Capture(path: request.path, timestamp: image.timestamp, width: image.width,
                                   height: image.height, format: request.format)
                }
                request.continuation.resume(returning: Written(outcome: outcome, writer: thread))
            }
        }
        slot.withLock { $0 = writer }
        state.withLock { $0.writers[ObjectIdentifier(writer)] = writer }
        do {
            try writer.start()
        } catch {
            slot.withLock { $0 = nil }
            _ = state.withLock { $0.writers.removeValue(forKey: ObjectIdentifier(writer)) }
            throw fail(error)
        }
    }

    public func endOfStream(at index: Int, in context: isolated RenderContext) {
        let left = state.withLock { state -> [Request] in
            defer { state.pending = [] }
            return state.pending
        }
        for request in left {
            let when = request.time.map { "at or after \($0.seconds) s" } ?? ""
            request.continuation.resume(returning: Written(outcome: .failure(ELImageError.invalidState(
                node: "Snapshot", reason: "the stream ended before a frame \(when) arrived for \(request.path)"))))
        }
    }
}
