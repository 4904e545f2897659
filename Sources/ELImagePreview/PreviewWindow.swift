import ELImage
import Foundation

/// A sink that shows the frames reaching it in a desktop window (X11 or Wayland), drawn straight
/// from the graph's textures on a presentation thread of its own: no readback, no CPU copy.
///
/// ```swift
/// let display = try PreviewDisplay.connect()
/// let context = try RenderContext(windowSystem: display)
/// let preview = try PreviewWindow(context: context, display: display, options: .init(title: "camera"))
/// preview.onCloseRequest = { Task { await source.close() } }   // q, Escape or the close button
/// camera --> beauty --> preview
/// ```
///
/// The window never slows the graph: the render thread leaves each frame in a one-frame mailbox
/// and goes on; a frame replaced before it was shown is dropped and counted (`statistics`), so a
/// slow or hidden window loses preview frames while a recording beside it gets every frame. With
/// `.timestamps` pacing (file sources) frames are passed on when their timestamps come due on the
/// wall clock, and `space` pauses; the file source, paced by the graph, waits meanwhile.
///
/// Keys: `q`/Escape and the close button call `onCloseRequest`; `f` toggles fullscreen; `space`
/// pauses `.timestamps` playback; every other key goes to `onKey`. Both run on the presentation
/// thread: keep them short.
///
/// The window follows the frames' size (up to the screen's) until the user resizes it; the
/// picture keeps its aspect ratio (`PreviewScaling.fit`, black bars) unless told otherwise.
/// `close()` (or the context's) stops the thread, destroys the window and joins the thread.
public final class PreviewWindow: ImageInput, ClosableNode, @unchecked Sendable {
    // @unchecked Sendable: mutable state is in `state` (Locked) or owned by the presentation thread.

    /// How frames are passed to the window.
    public enum Pacing: Sendable {
        /// As they come; the newest wins (live sources: cameras).
        case newestFrame
        /// When their timestamps come due on the wall clock (file sources, which wait for it).
        case timestamps
    }

    public struct Options: Sendable {
        public var title: String
        /// The window's size in pixels; nil: the frames' size (at most the screen's).
        public var size: (width: Int, height: Int)?
        public var scaling: PreviewScaling
        public var pacing: Pacing
        /// Shows at most this many frames a second (the others are dropped and counted); nil: all.
        public var maximumFrameRate: Double?
        public var fullscreen: Bool
        /// 1 waits for the display's vertical blank on each swap (on the presentation thread only);
        /// 0 never waits. Xvfb has no vertical blank, so both work there.
        public var swapInterval: Int

        public init(title: String = "ELImage", size: (width: Int, height: Int)? = nil, scaling: PreviewScaling = .fit,
                    pacing: Pacing = .newestFrame, maximumFrameRate: Double? = nil, fullscreen: Bool = false,
                    swapInterval: Int = 0) {
            self.title = title
            self.size = size
            self.scaling = scaling
            self.pacing = pacing
            self.maximumFrameRate = maximumFrameRate
            self.fullscreen = fullscreen
            self.swapInterval = swapInterval
        }
    }

    /// What became of the frames that reached the window.
    public struct Statistics: Sendable, Equatable, CustomStringConvertible {
        /// Frames that reached the sink.
        public var received = 0
        /// Frames drawn and swapped into the window.
        public var presented = 0
        /// Frames replaced by a newer one before they could be shown, or arriving after a failure.
        public var dropped = 0

        /// E.g. "120 received, 118 presented, 2 dropped".
        public var description: String { "\(received) received, \(presented) presented, \(dropped) dropped" }
    }

    public let inputSlots = InputSlots(count: 1)
    public let options: Options

    private let state: Locked<PreviewState>
    private let mailbox = HandoffQueue<Presentation>(capacity: 1)
    private let display: PreviewDisplay
    private let window: NativeWindow
    private let windowContext: WindowContext
    private let thread: JoinableThread
    private weak let context: RenderContext?

    /// Opens the window on `display` and starts its presentation thread. `context` must have been
    /// made with `RenderContext(windowSystem: display)`.
    /// - Throws: `PreviewError` when the window system refuses the window, `ELImageError.egl` when
    ///   EGL cannot draw into it.
    public init(context: RenderContext, display: PreviewDisplay, options: Options = Options()) throws {
        self.options = options
        state = Locked(PreviewState(pacing: options.pacing))
        self.display = display
        self.context = context
        let initial = options.size ?? (640, 360)
        let window = try display.makeWindow(title: options.title, width: initial.width, height: initial.height,
                                            context: context)
        let windowContext: WindowContext
        do {
            windowContext = try context.makeWindowContext(window: window.eglWindow)
        } catch {
            window.destroy()
            throw error
        }
        self.window = window
        self.windowContext = windowContext
        nonisolated(unsafe) let presenter = Presenter(window: window, windowContext: windowContext, options: options,
                                                      screen: display.screenSize)
        let mailbox = mailbox
        let state = state
        weak let weakContext = context
        thread = JoinableThread(name: "ELImage.preview", group: context.threads) {
            presenter.run(mailbox: mailbox, state: state) { error, node in weakContext?.report(error, from: node) }
        }
        presenter.node = self
        if options.fullscreen { state.withLock { $0.fullscreen = true } }
        try thread.start()
        context.register(self, stage: .sink)
    }

    /// Called once when the user asks to end (`q`, Escape, the close button), on the presentation
    /// thread. Stop the sources there (as for Ctrl-C); the pipeline then ends and closes the window.
    public var onCloseRequest: (@Sendable () -> Void)? {
        get { state.withLock { $0.onCloseRequest } }
        set { state.withLock { $0.onCloseRequest = newValue } }
    }

    /// Called for keys the window does not handle itself, on the presentation thread.
    public var onKey: (@Sendable (PreviewKey) -> Void)? {
        get { state.withLock { $0.onKey } }
        set { state.withLock { $0.onKey = newValue } }
    }

    /// True once the user asked to end.
    public var isCloseRequested: Bool { state.withLock { $0.closeRequested } }

    /// The counters so far.
    public var statistics: Statistics {
        let (received, presented, discarded) = state.withLock { ($0.received, $0.presented, $0.discarded) }
        return Statistics(received: received, presented: presented, dropped: discarded + mailbox.statistics.replaced)
    }

    /// Sets the window's title (from any thread).
    public func setTitle(_ title: String) {
        state.withLock { $0.title = title }
    }

    /// Asks for fullscreen, or a window again (from any thread).
    public func setFullscreen(_ fullscreen: Bool) {
        state.withLock { $0.fullscreen = fullscreen }
    }

    /// Pauses or resumes `.timestamps` playback (what `space` does).
    public func setPaused(_ paused: Bool) {
        state.withLock { $0.clock.setPaused(paused) }
    }

    /// Changes how frames are passed to the window from now on (`options.pacing` at first). Set
    /// `.newestFrame` when the pipeline is told to stop (a signal): a frame waiting for its
    /// timestamp, or a paused preview, then no longer holds the graph.
    public func setPacing(_ pacing: Pacing) {
        state.withLock { $0.pacing = pacing }
    }

    public func receive(_ frame: TextureFrame, at index: Int, in context: isolated RenderContext) throws {
        state.withLock { $0.received += 1 }
        if state.withLock({ $0.pacing }) == .timestamps { waitUntilDue(frame.timestamp) }
        let outcome = mailbox.isCancelled
            ? .closed
            : mailbox.push(Presentation(frame: frame, fence: try context.insertFence()), whenFull: .replaceOldest)
        switch outcome {
        case .closed:
            state.withLock { $0.discarded += 1 }
            publishDrop(in: context)
        case .replacedOlder:
            publishDrop(in: context)
        default:
            break
        }
    }

    /// A frame was dropped (this one, or the one it replaced): a `.dropped` event.
    private func publishDrop(in context: isolated RenderContext) {
        context.publish(.dropped(FrameDrop(node: NodeReference(self), count: 1, total: statistics.dropped)))
    }

    /// Holds the render thread (and so the file source feeding it) until `timestamp` is due, in
    /// short steps that notice a pause, the end of pacing and the window's close.
    private func waitUntilDue(_ timestamp: MediaTime) {
        while !mailbox.isCancelled {
            let delay = state.withLock { state -> Duration? in
                if state.pacing != .timestamps || state.closeRequested { return nil }
                return state.clock.isPaused ? .milliseconds(10) : state.clock.delay(until: timestamp)
            }
            guard let delay, delay > .zero else { return }
            Thread.sleep(forTimeInterval: min(0.01, Double(delay.components.seconds) + Double(delay.components.attoseconds) * 1e-18))
        }
    }

    /// The safety net for a window never closed: its thread ends on its own (never waited for here).
    deinit { discardMailbox() }

    /// Stops the presentation thread, destroys the window and joins the thread. Idempotent.
    public func close() async {
        discardMailbox()
        await thread.join()
    }
}

extension PreviewWindow {
    /// Closes the mailbox; a frame still waiting is let go, counted as dropped and published.
    fileprivate func discardMailbox() {
        let discarded = mailbox.close(discarding: true).count
        guard discarded > 0 else { return }
        state.withLock { $0.discarded += discarded }
        context?.publish(.dropped(FrameDrop(node: NodeReference(self), count: discarded, total: statistics.dropped)))
    }
}

/// A frame on its way to the window, with the fence that says when the render thread's work on it is done.
struct Presentation: Sendable {
    let frame: TextureFrame
    let fence: GLFence?
}

/// What the render thread, the presentation thread and the window's users share.
private struct PreviewState {
    var received = 0
    var presented = 0
    /// Frames that came after the mailbox closed, or were waiting when it did.
    var discarded = 0
    var clock = PlaybackClock()
    var pacing: PreviewWindow.Pacing
    var closeRequested = false
    /// Changes asked for from other threads, applied by the presentation thread.
    var title: String?
    var fullscreen: Bool?
    var onCloseRequest: (@Sendable () -> Void)?
    var onKey: (@Sendable (PreviewKey) -> Void)?
}

/// The presentation thread's side: the window, its GL context and what it shows.
private final class Presenter {
    let window: NativeWindow
    let windowContext: WindowContext
    let options: PreviewWindow.Options
    let screen: (width: Int, height: Int)?
    weak var node: PreviewWindow?

    private var shown: TextureFrame?
    private var requestedSize: (width: Int, height: Int)?
    private var followsFrames: Bool
    private var fullscreen = false
    private var lastPresent: ContinuousClock.Instant?
    private let clock = ContinuousClock()
    private var closeState: Locked<PreviewState>?

    init(window: NativeWindow, windowContext: WindowContext, options: PreviewWindow.Options,
         screen: (width: Int, height: Int)?) {
        self.window = window
        self.windowContext = windowContext
        self.options = options
        self.screen = screen
        followsFrames = options.size == nil
        requestedSize = options.size
    }

    /// The presentation loop: window events, changes asked for, and the newest frame, until the
    /// mailbox is stopped; then the GL context and the window are destroyed on this thread.
    func run(mailbox: HandoffQueue<Presentation>, state: Locked<PreviewState>, report: (Error, AnyObject) -> Void) {
        closeState = state
        defer { closeState = nil }
        var failed = false
        do {
            try windowContext.makeCurrent(swapInterval: options.swapInterval)
        } catch {
            if let node { report(error, node) }
            failed = true
        }
        while !mailbox.isCancelled {
            var redraw = handleEvents(state: state)
            applyRequests(state: state)
            let due = isPresentationDue()
            // Not due: wait a little for news (events, a frame) without taking the frame.
            if !due { mailbox.wait(until: Date(timeIntervalSinceNow: 0.005)) }
            if due, let delivery = mailbox.pop(waitingUntil: Date(timeIntervalSinceNow: 0.01)) {
                adaptWindow(to: delivery.frame)
                shown = delivery.frame
                redraw = true
                if !failed { state.withLock { $0.presented += 1 } }
                lastPresent = clock.now
                present(delivery.fence, failed: &failed, report: report)
            } else if redraw {
                present(nil, failed: &failed, report: report)
            }
        }
        shown = nil
        windowContext.destroy()
        window.destroy()
    }

    private func present(_ fence: GLFence?, failed: inout Bool, report: (Error, AnyObject) -> Void) {
        guard !failed, !window.isLost else { return }
        let drawable = windowContext.drawableSize
        let viewport = shown.map { options.scaling.viewport(frame: ($0.width, $0.height), window: drawable) }
            ?? (0, 0, 0, 0)
        do {
            try windowContext.present(shown, fence: fence, viewport: viewport)
        } catch {
            // The window is gone (its server quit, its surface was lost): the user can no longer
            // see or stop the pipeline there, so it is asked to end, as with the close button.
            failed = true
            if let node { report(error, node) }
            if let state = closeState { requestClose(state: state) }
        }
    }

    /// With a frame-rate limit, whether enough time passed since the last frame shown.
    private func isPresentationDue() -> Bool {
        guard let rate = options.maximumFrameRate, rate > 0, let lastPresent else { return true }
        return clock.now - lastPresent >= .seconds(1 / rate)
    }

    /// Resizes the window to a frame of a new size while it follows the frames (not after the
    /// user resized it, nor in fullscreen), fitted into the screen.
    private func adaptWindow(to frame: TextureFrame) {
        guard followsFrames, !fullscreen else { return }
        var size = (width: frame.width, height: frame.height)
        if let screen, size.width > screen.width || size.height > screen.height {
            let scale = min(Double(screen.width) / Double(size.width), Double(screen.height) / Double(size.height))
            size = (max(1, Int(Double(size.width) * scale)), max(1, Int(Double(size.height) * scale)))
        }
        if let requestedSize, requestedSize == size { return }
        requestedSize = size
        window.resize(width: size.width, height: size.height)
    }

    /// Handles the window's events; true when the window must be drawn again.
    private func handleEvents(state: Locked<PreviewState>) -> Bool {
        var redraw = false
        for event in window.pendingEvents() {
            switch event {
            case .closeRequested, .key(.escape), .key(.character("q")):
                requestClose(state: state)
            case .key(.character("f")):
                state.withLock { $0.fullscreen = !fullscreen }
            case .key(.character(" ")) where options.pacing == .timestamps:
                state.withLock { $0.clock.setPaused(!$0.clock.isPaused) }
            case let .key(key):
                state.withLock { $0.onKey }?(key)
            case let .resized(width, height):
                if let requestedSize, requestedSize != (width, height), !fullscreen { followsFrames = false }
                redraw = true
            case .exposed:
                redraw = true
            }
        }
        return redraw
    }

    private func requestClose(state: Locked<PreviewState>) {
        let handler = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.closeRequested else { return nil }
            state.closeRequested = true
            return state.onCloseRequest
        }
        handler?()
    }

    private func applyRequests(state: Locked<PreviewState>) {
        let (title, fullscreen) = state.withLock { state in
            defer { (state.title, state.fullscreen) = (nil, nil) }
            return (state.title, state.fullscreen)
        }
        if let title { window.setTitle(title) }
        if let fullscreen, fullscreen != self.fullscreen {
            self.fullscreen = fullscreen
            window.setFullscreen(fullscreen)
        }
    }
}

extension PreviewWindow: PlanDescribing {
    package var planSummary: String {
        "draws the newest frame into the window (1 pass) and swaps on ELImage.preview"
    }
}
