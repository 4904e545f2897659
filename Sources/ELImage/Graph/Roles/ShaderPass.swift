/// The one draw of a single-shader filter, held by the filter as a component: the fragment shader,
/// the filter's inputs, and the latest frame of each input.
///
/// The shader samples `inputImageTexture` (input 0), `inputImageTexture2` (input 1), ... at
/// `textureCoordinate` and writes `fragColor`. With several inputs, a frame on input 0 draws with
/// the latest frame of every other input (kept and reused until a newer one comes); until each
/// connected input has delivered one, input-0 frames are skipped: the first skip is reported to
/// the context's error handler (`missingInputError`), and every skip is counted (`skippedFrames`)
/// and said as a `.dropped` event naming the filter.
public final class ShaderPass: Sendable {
    /// Names the program in the context's cache and in error messages (unique per shader source).
    public let programName: String
    /// GLSL ES 3.00 source.
    public let fragmentShader: String
    /// The filter's inputs (one per sampled input frame).
    public let inputSlots: InputSlots
    private let latest: Locked<Latest>

    /// The latest frame of each input, whether a skip for a missing one was reported, and the skips.
    private struct Latest {
        var frames: [TextureFrame?]
        var reportedMissing = false
        var skipped = 0
        /// Frames that came on input 0.
        var arrived = 0
    }

    /// Frames on input 0 skipped (not drawn) because another input had no frame yet.
    public var skippedFrames: Int { latest.withLock { $0.skipped } }

    /// The pass as a hop of a `FrameAccount`: the frames on input 0, those drawn, and those
    /// skipped because another input had no frame yet.
    public func frameHop(named name: String) -> FrameHop {
        latest.withLock { latest in
            FrameHop(name: name, framesIn: latest.arrived, passedOn: latest.arrived - latest.skipped,
                     drops: [.init(latest.skipped, "another input had no frame yet")])
        }
    }

    /// - Parameters:
    ///   - name: unique per shader source (the cache key of the compiled program).
    ///   - fragmentShader: GLSL ES 3.00 source.
    ///   - inputCount: how many input frames the shader samples.
    public init(name: String, fragmentShader: String, inputCount: Int = 1) {
        programName = name
        self.fragmentShader = fragmentShader
        inputSlots = InputSlots(count: inputCount)
        latest = Locked(Latest(frames: Array(repeating: nil, count: max(1, inputCount))))
    }

    /// The pass that runs one colour piece alone: the shader a one-piece `ColorChain` generates,
    /// so fused and unfused results agree.
    public convenience init(colorPiece: ColorPiece) {
        self.init(name: ColorShader.programName(for: [colorPiece]),
                  fragmentShader: ColorShader.fragmentSource(for: [colorPiece]))
    }

    /// Compiles and links the program in `context`.
    func prepare(in context: isolated RenderContext) throws {
        _ = try context.program(named: programName, fragment: fragmentShader)
    }

    /// Keeps `frame` as the latest of input `index`; `inputs` holds every input's frame when it is
    /// time to draw (a frame on input 0, and a frame from each other connected input). `missing`
    /// names the connected input that had no frame yet, the first time a frame on input 0 is
    /// skipped for it (once per pass: report it with `missingInputError`), and the skips so far
    /// when this frame was skipped.
    func inputsToDraw(after frame: TextureFrame, at index: Int) -> (inputs: [TextureFrame]?, missing: Int?, skipped: Int?) {
        latest.withLock { latest in
            guard latest.frames.indices.contains(index) else { return (nil, nil, nil) }
            latest.frames[index] = frame
            guard index == 0 else { return (nil, nil, nil) }
            latest.arrived += 1
            var inputs: [TextureFrame] = []
            for (slot, frame) in latest.frames.enumerated() {
                if let frame {
                    inputs.append(frame)
                } else if inputSlots.isConnected(slot) {
                    latest.frames[0] = nil
                    latest.skipped += 1
                    if latest.reportedMissing { return (nil, nil, latest.skipped) }
                    latest.reportedMissing = true
                    return (nil, slot, latest.skipped)
                }
            }
            latest.frames[0] = nil
            return (inputs, nil, nil)
        }
    }

    /// What to tell the user when frames on input 0 of `node` are skipped because input `slot`
    /// has not delivered a frame yet.
    static func missingInputError(node: String, slot: Int) -> ELImageError {
        .invalidState(node: node, reason: "frames arrive on input 0 while input \(slot) has no frame yet, so they are "
                      + "skipped (not drawn); start the source of input \(slot) first (e.g. run a still-image layer before "
                      + "the movie, or deliver its first frame before starting the movie): once it has a frame, "
                      + "its latest frame is reused for every frame on input 0")
    }

    /// The pass as a recipe's stage (`Recipe`).
    func stage(monochrome: Bool) -> Recipe.Stage {
        Recipe.Stage(name: programName, source: fragmentShader, monochrome: monochrome)
    }

    /// The draw of `inputs` (plus `extra` textures on the following units) into a frame of `size`
    /// that carries the first input's timestamp, colour space and working format, described rather
    /// than made: `render` draws it, a sink that packs 4:2:0 may run it inside its pack.
    func described(_ inputs: [TextureFrame], extra: [SamplerTexture], size: (width: Int, height: Int),
                   uniforms: [String: UniformValue], monochrome: Bool = false) throws -> Recipe {
        guard let first = inputs.first else {
            throw ELImageError.invalidState(node: programName, reason: "a pass was drawn without an input frame")
        }
        return Recipe(stage: stage(monochrome: monochrome), first: first, others: Array(inputs.dropFirst()), extra: extra,
                      width: size.width, height: size.height, uniforms: uniforms)
    }

    /// Draws `inputs` (plus `extra` textures on the following units) into a new pooled frame of
    /// `size` that carries the first input's timestamp, colour space and working format.
    func draw(_ inputs: [TextureFrame], extra: [SamplerTexture], size: (width: Int, height: Int),
              uniforms: [String: UniformValue], in context: isolated RenderContext) throws -> TextureFrame {
        try described(inputs, extra: extra, size: size, uniforms: uniforms).render(in: context)
    }
}
