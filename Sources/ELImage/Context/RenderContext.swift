import CEGL
import CGLES
import Foundation

/// A headless OpenGL ES 3 context with its own render thread: the place where a graph runs.
///
/// `RenderContext` is an actor whose executor is its render thread, and the EGL context is current
/// on that thread alone. Everything that touches GL in ELImage takes an `isolated RenderContext`,
/// so the compiler only lets it run on the right thread:
///
/// ```swift
/// try await withRenderContext { context in
///     try await context.perform { context in      // runs on the render thread
///         try source.process(pixels, width: 640, height: 480, format: .rgba, timestamp: .zero, in: context)
///     }
/// }                                               // closed here, also when the body throws
/// ```
///
/// **End of life.** A context ends with `close()` (or the end of a `withRenderContext` scope),
/// awaited before the program's `main` returns. It stops the sources working in it, drains the
/// sinks (encoders flush, files are finished and synced), joins every thread the framework started
/// for them, deletes the GL objects, destroys the EGL context and lets go of the display, in that
/// order. After it, no thread of the context is alive. `deinit` is only a safety net for a context
/// that was never closed: it never waits, lets the render thread end in the background and, in
/// debug builds, says so on standard error.
///
/// Contexts are independent: two in one process have their own threads, textures and programs.
public actor RenderContext {
    private nonisolated let thread: RenderThread
    private nonisolated let egl: EGLContextHandle
    private nonisolated let lifecycle = ContextLifecycle()
    private nonisolated let sharedContextCount = Locked(0)

    /// The threads started for the nodes working in this context (encoders, file sinks, capture,
    /// decoding): joined by `close()`.
    package nonisolated let threads = ThreadGroup()

    /// What the driver reported when the context was made.
    public nonisolated let info: RenderContextInfo

    /// Where the context's sinks read frames back: never `.automatic` (resolved for the renderer
    /// when the context was made).
    public nonisolated let readbackPlacement: ReadbackPlacement

    /// The time the context's nodes read and wait on (real-time pacing, stall timeouts):
    /// `ContinuousClock` unless the context was made with another (a test's `ManualClock`).
    public nonisolated let clock: any BlockingClock

    /// The GL objects the context owns, and the way frames and fences give theirs back.
    nonisolated let resources: RenderResources

    /// Textures and framebuffers for frames, reused across frames.
    public var framePool: FramePool { resources.framePool }

    /// The frame pool's counters (`await context.poolStatistics` from outside the render thread).
    public var poolStatistics: FramePool.Counters { framePool.statistics }

    private var emptyVertexArray: GLuint = 0
    /// The framebuffer of draws into several targets at once (`draw(_:into:inputs:rows:setUniforms:)`
    /// with more than one target); its attachments are set for each such draw and removed after it.
    private var multipleTargetFramebuffer: GLuint = 0
    /// Where failures, drops and ends go (`events`, `setErrorHandler`).
    private nonisolated let eventHub = EventHub()

    /// Recipes that cannot run inside a sink's pack (by the pack program's name): their pictures
    /// are drawn and packed.
    var unpackableShaders: Set<String> = []

    /// Whether a recipe's shader can be made, by its program name (`Recipe`): asked once per shape.
    var composableRecipes: [String: Bool] = [:]

    /// The latest upload's interleaved chroma rows (`uploadInterleavedChroma`), kept so that the
    /// next picture of the same size needs no allocation.
    var interleavedChroma: [UInt8] = []

    /// Draw calls issued by ELImage's nodes on this context since it was made.
    public private(set) var drawCallCount = 0

    /// Where this context writes the fragment shaders it compiles (`ShaderDump`): the folder named by
    /// `ELIMAGE_DUMP_SHADERS` unless set otherwise (tests dump one context's shaders).
    package var shaderDumpFolder: String? = ShaderDump.folder

    public nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }

    /// Opens an EGL display and creates the context on a new render thread.
    ///
    /// - Parameters:
    ///   - platform: the EGL platform to use; `nil` honours `ELIMAGE_EGL_PLATFORM` and otherwise
    ///     tries GBM, then GPU devices, then Mesa surfaceless.
    ///   - clock: the time the context's nodes read and wait on (see `clock`).
    ///   - readback: which thread reads frames back for the sinks (see `ReadbackPlacement`).
    public init(platform: EGLPlatform? = nil, clock: any BlockingClock = ContinuousClock(),
                readback: ReadbackPlacement = .automatic) throws {
        let candidates = try EGLPlatform.candidates(requested: platform)
        try self.init(clock: clock, readback: readback) { try EGLDisplayHandle.open(candidates: candidates) }
    }

    /// Creates the context on a window system's display (X11 or Wayland), so that its frames can
    /// be drawn into that connection's windows (`PreviewWindow`) without a copy. Offscreen work
    /// runs as on a headless context.
    public init(windowSystem: any WindowSystemDisplay, clock: any BlockingClock = ContinuousClock(),
                readback: ReadbackPlacement = .automatic) throws {
        try self.init(clock: clock, readback: readback) { try EGLDisplayHandle.open(windowSystem: windowSystem) }
    }

    private init(clock: any BlockingClock, readback: ReadbackPlacement, openDisplay: @escaping @Sendable () throws -> EGLDisplayHandle) throws {
        let thread = try RenderThread(name: "ELImage.render")
        let made: (EGLContextHandle, RenderContextInfo)
        do {
            made = try thread.sync {
                let display = try openDisplay()
                let egl = try EGLContextHandle(display: display)
                try egl.makeCurrent()
                let info = RenderContextInfo.queryCurrent(platform: display.platform, device: display.source)
                return (egl, info)
            }
        } catch {
            thread.stop()
            thread.abandon()
            throw error
        }
        self.thread = thread
        self.clock = clock
        (self.egl, self.info) = made
        readbackPlacement = readback.resolved(softwareRenderer: made.1.isSoftwareRenderer)
        self.resources = RenderResources(framePool: FramePool(maximumTextureSize: made.1.maximumTextureSize), thread: thread)
    }

    /// The safety net for a context that was never closed: never waits, never touches GL here.
    deinit {
        guard !lifecycle.isClosed else { return }
        #if DEBUG
        let warning = "ELImage: a RenderContext was released without close(); its threads end in the background. "
            + "Await context.close() (or use withRenderContext) before the program ends.\n"
        FileHandle.standardError.write(Data(warning.utf8))
        #endif
        let (resources, egl) = (self.resources, self.egl)
        thread.submit {
            resources.deleteAll()
            egl.releaseCurrent()
            egl.destroy()
            egl.display.release()
        }
        thread.stop()
        thread.abandon()
        threads.abandonAll()
        eventHub.close()
    }

    // MARK: End of life

    /// True once `close()` has finished: the context runs nothing any more.
    public nonisolated var isClosed: Bool { lifecycle.isClosed }

    /// The framework threads of this context that are alive or not yet joined: its render thread
    /// and those started for its nodes. Empty once `close()` has returned.
    public nonisolated var runningThreadNames: [String] {
        (lifecycle.isClosed ? [] : ["ELImage.render"]) + threads.names
    }

    /// Has `node` closed by this context's `close()`: sources first, then filters, then sinks.
    /// Nodes that start threads, open devices or files register themselves when they start;
    /// a node of your own can too. The context keeps a weak reference.
    public nonisolated func register(_ node: any ClosableNode, stage: CloseStage) {
        lifecycle.register(node, stage: stage)
        node.registered(with: self)
    }

    /// Ends everything that runs in this context, in order, and returns when it has ended:
    /// 1. sources stop (no new frames; cameras release their devices, decoders stop);
    /// 2. sinks drain (encoders encode what they took in and finish their files);
    /// 3. every thread started for the context's nodes is joined;
    /// 4. on the render thread, the GL objects are deleted, the EGL context is destroyed and the
    ///    display let go of (terminated when no other context uses it);
    /// 5. the render thread ends and is joined.
    ///
    /// Idempotent and safe from any task, including one started from a frame callback: a second
    /// call waits for the first to finish. Failures met while draining are `.failed` events; the
    /// last event is `.closed`, and every `events` sequence ends after it.
    /// After `close()`, `perform` and `performAndWait` throw `ELImageError.closed`.
    public nonisolated func close() async {
        guard lifecycle.beginClose() else {
            await lifecycle.waitUntilClosed()
            return
        }
        for stage in CloseStage.allCases {
            while case let nodes = lifecycle.takeUnclosed(stage), !nodes.isEmpty {
                for node in nodes { await Self.end(node, at: stage) }
            }
        }
        await threads.joinAll()
        lifecycle.markGLClosed()
        await tearDownEGL()
        thread.stop()
        await thread.join()
        eventHub.close()
        lifecycle.finishClose()
    }

    /// Sinks that can drain are finished (what reached them is written); every other node is
    /// closed. A sink's failure is already an event: what `finish()` throws is not a second one.
    private static func end(_ node: any ClosableNode, at stage: CloseStage) async {
        if stage == .sink, let sink = node as? any FinishableNode {
            _ = try? await sink.finish()
        } else {
            await node.close()
        }
    }

    /// Deletes the GL objects, destroys the EGL context and lets go of the display, on the render
    /// thread: EGL's per-thread state then lives on that thread alone and goes with it.
    private func tearDownEGL() {
        resources.deleteAll()
        if emptyVertexArray != 0 { glDeleteVertexArrays(1, &emptyVertexArray) }
        emptyVertexArray = 0
        if multipleTargetFramebuffer != 0 { glDeleteFramebuffers(1, &multipleTargetFramebuffer) }
        multipleTargetFramebuffer = 0
        egl.releaseCurrent()
        egl.destroy()
        egl.display.release()
    }

    private nonisolated func checkOpen() throws(ELImageError) {
        if lifecycle.isGLClosed { throw .closed(what: "the render context") }
    }

    // MARK: Running work on the render thread

    /// Runs `body` on the render thread with the context isolated, and returns its result.
    /// - Throws: what `body` throws; `ELImageError.closed` after `close()`.
    public func perform<T: Sendable>(_ body: @Sendable (isolated RenderContext) throws -> T) throws -> T {
        try checkOpen()
        return try body(self)
    }

    /// Runs `body` on the render thread and blocks the calling thread until it returns; for code
    /// outside Swift concurrency (a capture thread, a simple command-line program). Runs inline when
    /// called on the render thread. Never call it from a Swift concurrency task: it would hold one
    /// of the few cooperative threads while it waits.
    /// - Throws: what `body` throws; `ELImageError.closed` after `close()`.
    public nonisolated func performAndWait<T: Sendable>(_ body: (isolated RenderContext) throws -> T) throws -> T {
        try checkOpen()
        nonisolated(unsafe) let body = body  // runs while this thread waits: never concurrently
        return try thread.sync {
            try self.assumeIsolated { context in try body(context) }
        }
    }

    /// Runs `body` on the render thread without waiting for it: at once when called there, else
    /// after the work queued before it. Runs `ifClosed` instead (on the calling thread or the
    /// render thread) when the context's GL is closed by then.
    package nonisolated func onRenderThread(_ body: @escaping @Sendable (isolated RenderContext) -> Void,
                                            ifClosed: @escaping @Sendable () -> Void) {
        let run: @Sendable () -> Void = { [self] in
            if lifecycle.isGLClosed {
                ifClosed()
            } else {
                assumeIsolated { context in body(context) }
            }
        }
        if thread.isCurrent {
            run()
        } else if !thread.submit(run) {
            ifClosed()
        }
    }

    /// Makes a framework thread named `name` for a sink's worker; `start()` it once its owner keeps
    /// it. With `sharingGL`, a context shared with this one is current on it, for reading frames
    /// back off the render thread: `body` gets the error when it cannot be made current, and the
    /// thread releases and destroys it when `body` returns. The thread is registered with this
    /// context, so `close()` joins it if its owner did not.
    /// - Throws: `ELImageError.egl` when no shared context can be made; `.closed` after `close()`.
    package nonisolated func makeWorker(name: String, sharingGL: Bool = true,
                                        body: @escaping @Sendable (ELImageError?) -> Void) throws -> JoinableThread {
        guard sharingGL else {
            try checkOpen()
            return JoinableThread(name: name, group: threads) { body(nil) }
        }
        let shared = try makeSharedContext()
        return JoinableThread(name: name, group: threads) {
            var failure: ELImageError?
            do {
                try shared.makeCurrent()
            } catch {
                failure = error as? ELImageError
                    ?? .invalidState(node: name, reason: "cannot make its GL context current: \(error)")
            }
            body(failure)
            shared.releaseCurrent()
            shared.destroy()
            eglReleaseThread()
        }
    }

    // MARK: Events: failures, drops, ends

    /// The context's events from now on: every node's failure (once, with the node), frames
    /// dropped, sources' and sinks' ends, and `.closed`, after which the sequence ends. Each use
    /// makes a new subscriber with its own buffer (see `RenderEvents` for the policy); publishing
    /// never waits for it.
    public nonisolated var events: RenderEvents { events(capacity: 256) }

    /// `events`, keeping up to `capacity` events the consumer has not taken.
    public nonisolated func events(capacity: Int) -> RenderEvents {
        RenderEvents(subscription: EventSubscription(hub: eventHub, capacity: capacity))
    }

    /// Sets a closure that hears the `.failed` events as they happen, on the thread where the
    /// failure was found (the render thread, a sink's worker); keep it short. As before the event
    /// stream, it does not hear a source's failure that `run(on:)` throws. Without a handler and
    /// without an `events` subscriber, failures are written to standard error. A failing node
    /// never stops the others. New code iterates `events` instead.
    public nonisolated func setErrorHandler(_ handler: (@Sendable (NodeFailure) -> Void)?) {
        eventHub.setErrorHandler(handler)
    }

    /// Reports a node's failure: a `.failed` event (on the calling thread).
    public nonisolated func report(_ error: Error, from node: AnyObject) {
        report(error, from: NodeReference(node))
    }

    /// Reports the failure of the node named `name` (`NodeFailure.name(of:)`): for the workers of a
    /// node, which report without holding it.
    package nonisolated func report(_ error: Error, fromNodeNamed name: String) {
        report(error, from: NodeReference(name: name, id: nil))
    }

    /// Reports the failure of `node`; `thrownByRun`: a source's failure that its `run(on:)` also
    /// throws (not handed to the error handler).
    package nonisolated func report(_ error: Error, from node: NodeReference, thrownByRun: Bool = false) {
        publish(.failed(NodeFailure(reference: node, error: error, isThrownByRun: thrownByRun)))
    }

    /// Publishes `node`'s message on the event stream (`RenderEvent.message`), on the calling
    /// thread, never waiting: how a node tells what it did beyond failing and ending.
    public nonisolated func publish(_ message: any NodeMessage, from node: AnyObject) {
        publish(.message(NodeReference(node), message))
    }

    /// Hands `event` to the event stream's subscribers (on the calling thread, never waiting).
    package nonisolated func publish(_ event: RenderEvent) {
        eventHub.publish(event)
    }

    // MARK: Shared contexts and fences

    /// Creates a context that shares objects with this one, for use on another thread.
    /// - Throws: `ELImageError.egl` when the driver refuses; `ELImageError.closed` after `close()`.
    public nonisolated func makeSharedContext() throws -> SharedContext {
        try checkOpen()
        let handle = try thread.sync { try EGLContextHandle(display: egl.display, sharing: egl) }
        sharedContextCount.withLock { $0 += 1 }
        return SharedContext(handle: handle)
    }

    /// How many shared contexts (`makeSharedContext()`) this context has made.
    package nonisolated var sharedContextsMade: Int { sharedContextCount.withLock { $0 } }

    /// Creates a context sharing objects with this one that draws into `window` (an X11 `Window*`
    /// or a `wl_egl_window*` of the context's window system), for a presentation thread.
    package nonisolated func makeWindowContext(window: UnsafeMutableRawPointer) throws -> WindowContext {
        try checkOpen()
        guard info.platform.isWindowSystem else {
            throw ELImageError.invalidState(node: "RenderContext",
                                            reason: "it runs on \(info.platform), not on a window system's display; "
                                                + "create it with RenderContext(windowSystem:)")
        }
        return WindowContext(handle: try thread.sync {
            try EGLContextHandle(display: egl.display, sharing: egl, window: window)
        })
    }

    /// The X11 visual that windows drawn by this context must have (0 off X11).
    package nonisolated var nativeVisualID: Int32 { egl.nativeVisualID }

    /// Inserts a fence after the commands issued so far, and flushes them.
    public func insertFence() throws -> GLFence {
        guard let sync = glFenceSync(GLenum(GL_SYNC_GPU_COMMANDS_COMPLETE), 0) else {
            throw ELImageError.gl(call: "glFenceSync", code: glGetError())
        }
        glFlush()
        return GLFence(sync: sync, resources: resources)
    }

    // MARK: Programs and drawing (used by nodes)

    /// The program called `name`, compiled and linked on first use, then cached for this context.
    /// `vertex` defaults to the full-frame triangle that sets `textureCoordinate`. `fragment` is
    /// evaluated only on first use: a generated source costs nothing on the frames after.
    public func program(named name: String, vertex: String? = nil,
                        fragment makeFragment: @autoclosure () -> String) throws -> ShaderProgram {
        if let program = resources.programs[name] { return program }
        let fragment = makeFragment()
        let program = try ShaderProgram(name: name, vertexSource: vertex ?? EmbeddedShaders.fullscreenVsh,
                                        fragmentSource: fragment)
        try ShaderDump.write(program: name, fragment: fragment, into: shaderDumpFolder)
        resources.programs[name] = program
        return program
    }

    /// Removes the cached program `name` and deletes it.
    public func discardProgram(named name: String) {
        resources.programs.removeValue(forKey: name)?.delete()
    }

    /// Draws one full-frame triangle into `target` with `program`, sampling `inputs` on texture units
    /// 0, 1, ... as the program's `inputImageTexture`, `inputImageTexture2`, ... samplers.
    /// `setUniforms` runs with the program in use. `rows` limits the draw to those texel rows of
    /// `target` (the viewport; `gl_FragCoord` keeps counting from the target's first row).
    public func draw(
        _ program: ShaderProgram, into target: TextureFrame, inputs: [TextureFrame], rows: Range<Int>? = nil,
        setUniforms: (ShaderProgram) throws -> Void = { _ in }
    ) throws {
        try draw(program, into: [target], inputs: inputs, rows: rows, setUniforms: setUniforms)
    }

    /// Draws one full-frame triangle into several targets at once: the program's output at
    /// `layout(location = i)` goes to `targets[i]`. The targets may differ in size and format; the
    /// draw covers the first target's width and `rows` (default: all its rows), which every target
    /// must hold.
    package func draw(
        _ program: ShaderProgram, into targets: [TextureFrame], inputs: [TextureFrame], rows: Range<Int>? = nil,
        setUniforms: (ShaderProgram) throws -> Void = { _ in }
    ) throws {
        guard let target = targets.first else { return }
        if emptyVertexArray == 0 {
            glGenVertexArrays(1, &emptyVertexArray)
            glDisable(GLenum(GL_DITHER))  // on by default; it would perturb exact 8-bit results
        }
        let rows = rows ?? 0..<target.height
        if targets.count == 1 {
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), target.framebuffer)
        } else {
            try bindMultipleTargets(targets, covering: target.width, rows: rows)
        }
        defer { if targets.count > 1 { unbindMultipleTargets(count: targets.count) } }
        glViewport(0, GLint(rows.lowerBound), GLsizei(target.width), GLsizei(rows.count))
        program.use()
        for (unit, input) in inputs.enumerated() {
            glActiveTexture(GLenum(GL_TEXTURE0 + Int32(unit)))
            glBindTexture(GLenum(GL_TEXTURE_2D), input.texture)
            program.setSampler(ShaderProgram.samplerName(forInput: unit), unit: unit)
        }
        try setUniforms(program)
        glBindVertexArray(emptyVertexArray)
        glDrawArrays(GLenum(GL_TRIANGLES), 0, 3)
        drawCallCount += 1
        let error = glGetError()
        if error != GL_NO_ERROR { throw ELImageError.gl(call: "glDrawArrays(\(program.name))", code: error) }
    }

    /// Attaches `targets` as colour attachments 0, 1, ... of the multiple-target framebuffer and
    /// binds it for drawing into all of them.
    private func bindMultipleTargets(_ targets: [TextureFrame], covering width: Int, rows: Range<Int>) throws {
        for (index, target) in targets.enumerated() where target.width < width || target.height < rows.upperBound {
            throw ELImageError.invalidState(
                node: "RenderContext", reason: "draw target \(index) is \(target.width)x\(target.height), smaller than the "
                    + "\(width) columns and \(rows.upperBound) rows drawn into all targets")
        }
        if multipleTargetFramebuffer == 0 { glGenFramebuffers(1, &multipleTargetFramebuffer) }
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), multipleTargetFramebuffer)
        for (index, target) in targets.enumerated() {
            glFramebufferTexture2D(GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0 + Int32(index)),
                                   GLenum(GL_TEXTURE_2D), target.texture, 0)
        }
        let buffers = targets.indices.map { GLenum(GL_COLOR_ATTACHMENT0 + Int32($0)) }
        glDrawBuffers(GLsizei(buffers.count), buffers)
        let status = glCheckFramebufferStatus(GLenum(GL_FRAMEBUFFER))
        if status != GLenum(GL_FRAMEBUFFER_COMPLETE) {
            unbindMultipleTargets(count: targets.count)
            throw ELImageError.gl(call: "glCheckFramebufferStatus(\(targets.count) targets: "
                                  + targets.map { "\($0.width)x\($0.height) \($0.format)" }.joined(separator: ", ") + ")",
                                  code: status)
        }
    }

    /// Detaches the multiple-target framebuffer's textures (they go back to the pool and may be
    /// deleted), leaving it bound to nothing.
    private func unbindMultipleTargets(count: Int) {
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), multipleTargetFramebuffer)
        for index in 0..<count {
            glFramebufferTexture2D(GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0 + Int32(index)),
                                   GLenum(GL_TEXTURE_2D), 0, 0)
        }
        var first = GLenum(GL_COLOR_ATTACHMENT0)
        glDrawBuffers(1, &first)
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
    }
}
