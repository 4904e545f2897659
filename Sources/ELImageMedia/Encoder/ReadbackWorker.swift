import ELImage
import Foundation

/// A picture on its way from the render thread to a worker thread: its planes packed on the GPU
/// and the fence after the commands that packed them.
struct PendingReadback: Sendable {
    let planes: PackedPlanes
    let fence: GLFence

    /// Waits for the fence, then reads the planes into `buffer`, which is made (or remade) with
    /// the planes' format and size. Call on a thread where a `SharedContext` of the frame's render
    /// context is current.
    func read(into buffer: inout PixelBuffer?, frame number: Int, file: String) throws {
        var waits = 0
        while !fence.wait(timeoutNanoseconds: 1_000_000_000) {
            waits += 1
            if waits >= 20 {
                throw ELImageError.malformedMedia(file: file, frame: number,
                                                  reason: "the GPU did not finish converting the frame within 20 s (fence timeout)")
            }
        }
        var target: PixelBuffer
        if let existing = buffer, existing.format == planes.format, existing.width == planes.width,
           existing.height == planes.height {
            target = existing
        } else {
            target = try PixelBuffer(format: planes.format, width: planes.width, height: planes.height)
        }
        buffer = nil  // one owner while the planes are read, so the bytes are not copied
        try planes.read(into: &target)
        buffer = target
    }
}

extension RenderContext {
    /// Packs `frame` into the planes of `format` on the GPU and inserts a fence after it, for a
    /// worker thread to read back without blocking the render thread.
    func prepareReadback(of frame: TextureFrame, as format: PixelFormat, colorSpace: ColorSpace,
                         chromaLocation: ChromaLocation) throws -> PendingReadback {
        let planes = try packPlanes(of: frame, as: format, colorSpace: colorSpace, chromaLocation: chromaLocation)
        return PendingReadback(planes: planes, fence: try insertFence())
    }
}

/// Starts worker threads that have a `SharedContext` of a render context current.
enum SharedContextThread {
    /// Makes a shared context of `context` (on the render thread, inline when called there) and
    /// starts a thread named `name` that makes it current and runs `body`; `body` gets the error
    /// when the context cannot be made current. When `body` returns, the context is released
    /// and destroyed; `finally` runs once the thread has exited entirely (see `JoinedThread`).
    static func start(name: String, context: RenderContext, body: @escaping @Sendable (ELImageError?) -> Void,
                      finally: @escaping @Sendable () -> Void) throws {
        let holder = SharedContextHolder(try context.makeSharedContext())
        try JoinedThread.start(name: name, body: {
            var failure: ELImageError?
            do {
                try holder.context?.makeCurrent()
            } catch {
                failure = error as? ELImageError ?? .invalidState(node: name, reason: "cannot make its GL context current: \(error)")
            }
            body(failure)
            holder.context?.releaseCurrent()
            holder.context = nil  // destroys the EGL context here, on this thread
        }, completion: finally)
    }

    /// Lets the worker thread drop its context before it ends.
    private final class SharedContextHolder: @unchecked Sendable {
        // @unchecked Sendable: handed to the worker thread at its start, then used by it alone.
        var context: SharedContext?
        init(_ context: SharedContext) { self.context = context }
    }
}

/// A joinable POSIX thread whose end is announced only once it has exited entirely.
///
/// A thread that signals "done" and then exits can still be running its thread-local destructors
/// (EGL's, glapi's, the Swift runtime's) when the process, told it is done, calls `exit()`:
/// the two then free the same memory. So the worker's `completion` runs on another thread after
/// `pthread_join` has returned.
enum JoinedThread {
    /// Runs `body` on a new thread named `name`, then, after the
    /// thread has exited, `completion` on a Dispatch thread.
    /// - Throws: `ELImageError.invalidState` when the thread cannot be created.
    static func start(name: String, stackSize: Int = 4 << 20, body: @escaping @Sendable () -> Void,
                      completion: @escaping @Sendable () -> Void) throws {
        let work = Unmanaged.passRetained(Work(name: name, body: body, completion: completion))
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackSize)
        var thread = pthread_t()
        let code = pthread_create(&thread, &attributes, { argument in
            guard let argument else { return nil }
            let work = Unmanaged<Work>.fromOpaque(argument).takeRetainedValue()
            Thread.current.name = work.name  // pthread_setname_np keeps the first 15 characters
            work.body()
            // Join from elsewhere, then announce the end.
            let me = JoinableThread(handle: pthread_self())
            let completion = work.completion
            DispatchQueue.global(qos: .utility).async {
                pthread_join(me.handle, nil)
                completion()
            }
            return nil
        }, work.toOpaque())
        guard code == 0 else {
            work.release()
            throw ELImageError.invalidState(node: name, reason: "cannot start its thread: \(String(cString: strerror(code)))")
        }
    }

    private final class Work: Sendable {
        let name: String
        let body: @Sendable () -> Void
        let completion: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void, completion: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
            self.completion = completion
        }
    }

    private struct JoinableThread: @unchecked Sendable {
        // @unchecked Sendable: a thread handle, joined exactly once by the one closure it goes to.
        let handle: pthread_t
    }
}
