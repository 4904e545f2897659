/// Which thread of a `RenderContext` reads frames back to the CPU for its sinks (files, encoders,
/// frame streams, callbacks).
public enum ReadbackPlacement: Sendable, Equatable, CustomStringConvertible {
    /// `.renderThread` on a software renderer (llvmpipe, softpipe, SwiftShader),
    /// `.sharedContextWorker` on a GPU.
    case automatic
    /// Each sink's worker thread makes a GL context shared with the render context, waits for
    /// the frame's fence and reads it back there: the render thread never waits for a readback.
    /// What GPU drivers are built for.
    case sharedContextWorker
    /// The render thread reads each frame back right after packing it and hands the CPU frame to
    /// the sink's worker, which holds no GL context: the process has one GL context. Mesa 22.3's
    /// llvmpipe can crash when two contexts of a process draw and read at once (<doc:ChoosingTheGPU>,
    /// "Known driver bug"); on a CPU renderer the readback is a copy in memory either way.
    case renderThread

    /// `.automatic` made concrete for a renderer.
    func resolved(softwareRenderer: Bool) -> ReadbackPlacement {
        guard self == .automatic else { return self }
        return softwareRenderer ? .renderThread : .sharedContextWorker
    }

    public var description: String {
        switch self {
        case .automatic: "automatic"
        case .sharedContextWorker: "on each sink's worker (shared GL context)"
        case .renderThread: "on the render thread (one GL context)"
        }
    }
}
