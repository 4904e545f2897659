/// Runs a sequence of colour operations as one shader pass: the fused form of
/// `a --> b --> c` for per-pixel filters.
///
/// ```swift
/// let look = ColorChain([Brightness(0.05), Contrast(1.2), Saturation(1.3)])
/// camera --> look --> encoder            // one draw per frame instead of three
/// ```
///
/// The operations keep working as parameter holders: changing `brightness.brightness` changes the
/// chain's next frame. The shader is generated from the operations' pieces once, and its program
/// is cached per context under a name that encodes the chain's shape.
///
/// By default the chain clamps and rounds the colour to 8 bits between pieces, exactly as the
/// separate nodes' frames do, so fusing never changes a picture: the result equals the separate
/// nodes within one level (rounding ties). With `.full` precision it keeps floats between pieces:
/// closer to the exact result, but each intermediate rounding the separate nodes make (up to half a
/// level, amplified by later gains) is missing, so the two can differ by a few levels.
public final class ColorChain: FrameFilter, PlannedStage {
    public let inputSlots = InputSlots()
    public let outputs = OutputTargets()

    /// What the chain does between its pieces.
    public typealias Precision = ColorPrecision

    /// The operations, applied first to last.
    public let operations: [any ColorOperation]
    /// The generated shader.
    private let pass: ShaderPass
    /// The name of the generated program in the context's cache.
    public var programName: String { pass.programName }
    /// The generated GLSL.
    public var fragmentShader: String { pass.fragmentShader }

    /// What the chain does between its pieces.
    public let precision: Precision

    /// - Parameters:
    ///   - operations: applied first to last.
    ///   - precision: round to 8 bits between pieces like separate nodes (default), or not.
    public init(_ operations: [any ColorOperation], precision: Precision = .matchingSeparatePasses) {
        self.operations = operations
        self.precision = precision
        let pieces = operations.map(\.colorPiece)
        pass = ShaderPass(name: ColorShader.programName(for: pieces, precision: precision),
                          fragmentShader: ColorShader.fragmentSource(for: pieces, precision: precision))
    }

    /// A chain rounding between pieces is its operations to the graph plan (a fused line computes
    /// the same); a `.full`-precision chain is a pass of its own.
    package var planRole: PlanRole {
        precision == .matchingSeparatePasses ? .colorOperations(operations, outputs: outputs) : .opaque(outputs: outputs)
    }

    public func prepare(in context: isolated RenderContext) throws {
        guard !operations.isEmpty else { return }
        try pass.prepare(in: context)
    }

    public func render(_ frame: TextureFrame, in context: isolated RenderContext) throws -> TextureFrame {
        try renderPicture(frame, in: context).pixels(in: context)  // (marked gray when the chain ends gray)
    }

    /// The chain's pass as a recipe over `frame` (the frame itself for an empty chain).
    public func renderPicture(_ frame: TextureFrame, in context: isolated RenderContext) throws -> Picture {
        try colored(Picture(frame), in: context)
    }

    /// Adds the chain's pieces to the recipe it gets (a `.full`-precision chain: its own pass over
    /// the picture's pixels).
    public func receive(_ picture: Picture, at index: Int, in context: isolated RenderContext) throws {
        guard index == 0 else { return }
        deliver(try colored(picture, in: context), in: context)
    }

    private func colored(_ picture: Picture, in context: isolated RenderContext) throws -> Picture {
        guard !operations.isEmpty else { return picture }
        try pass.prepare(in: context)  // (a piece that does not compile is this node's failure)
        guard precision == .full else { return try Recipe.coloring(picture, with: operations, in: context) }
        let frame = try picture.pixels(in: context)
        let (_, uniforms, textures) = try Recipe.steps(of: operations, firstIndex: 0, in: context)
        return Picture(try pass.described([frame], extra: textures, size: (frame.width, frame.height), uniforms: uniforms,
                                          monochrome: operations.last?.producesMonochrome ?? false))
    }
}
