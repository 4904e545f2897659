/// A picture not drawn yet (`Picture`): a stage (a filter's fragment shader over its input
/// frames) with colour pieces run on the texels it reads (`before`) and on its result (`after`),
/// or colour pieces alone over a frame. It is made as nodes pass it on: a colour filter adds its
/// pieces, a filter that reads its input at texel centres takes the colour before it into its
/// stage, and it is drawn where its pixels are needed: `render` (one pass of the shader
/// `RecipeShader` generates), or inside the pack of a sink that packs 8-bit 4:2:0 (`packed`).
///
/// It is made only over 8-bit frames beyond one node's own pass: each pass's result is rounded to 8
/// bits inside the shader as the frame it replaces holds it, so the picture is the separate passes'.
package struct Recipe: PackablePicture, Sendable {
    /// A filter's fragment shader: what it samples and writes is `ShaderPass`'s.
    package struct Stage: Sendable {
        /// The program's cache name (unique per source).
        let name: String
        let source: String
        /// Whether its result is gray whatever the input (`SinglePassFilter.drawsMonochrome`).
        let monochrome: Bool
    }

    /// A colour piece in the recipe, and whether its result is gray.
    struct ColorStep: Sendable {
        let piece: ColorPiece
        let monochrome: Bool
    }

    /// The first input: the stage's input 0 (or the frame the pieces colour). It gives the
    /// picture its timestamp, colour space and working format.
    let first: TextureFrame
    /// The stage's inputs after `first`.
    let others: [TextureFrame]
    /// Textures on the units after the inputs, with their sampler names (lookup tables).
    let extra: [SamplerTexture]
    package let width: Int
    package let height: Int
    let before: [ColorStep]
    let stage: Stage?
    let after: [ColorStep]
    /// The stage's uniforms, and the pieces' under their prefixes.
    let uniforms: [String: UniformValue]

    /// Sampled as `inputImageTexture`, `inputImageTexture2`, ...
    var inputs: [TextureFrame] { [first] + others }
    package var timestamp: MediaTime { first.timestamp }
    package var sequenceNumber: Int { first.sequenceNumber }
    package var colorSpace: ColorSpace { first.colorSpace }
    package var chromaLocation: ChromaLocation { first.chromaLocation }

    /// Whether the picture is gray (R = G = B): packed into I420 or YV12, only Y' is computed.
    var monochrome: Bool { after.last.map(\.monochrome) ?? stage?.monochrome ?? false }

    /// The most colour pieces one recipe takes; past it, the recipe is drawn and a new one begins.
    static let mostPieces = 64

    /// A filter's pass over `first` (and `others`), described rather than drawn.
    init(stage: Stage, first: TextureFrame, others: [TextureFrame] = [], extra: [SamplerTexture] = [],
         width: Int, height: Int, uniforms: [String: UniformValue]) {
        self.init(first: first, others: others, extra: extra, width: width, height: height,
                  before: [], stage: stage, after: [], uniforms: uniforms)
    }

    /// Colour `operations` over `frame`; nil for none.
    init?(coloring frame: TextureFrame, with operations: [any ColorOperation], in context: isolated RenderContext) throws {
        guard !operations.isEmpty else { return nil }
        let (steps, uniforms, textures) = try Self.steps(of: operations, firstIndex: 0, in: context)
        self.init(first: frame, others: [], extra: textures, width: frame.width, height: frame.height,
                  before: [], stage: nil, after: steps, uniforms: uniforms)
    }

    private init(first: TextureFrame, others: [TextureFrame], extra: [SamplerTexture], width: Int, height: Int,
                 before: [ColorStep], stage: Stage?, after: [ColorStep], uniforms: [String: UniformValue]) {
        self.first = first
        self.others = others
        self.extra = extra
        self.width = width
        self.height = height
        self.before = before
        self.stage = stage
        self.after = after
        self.uniforms = uniforms
    }

    /// `picture` with `operations` run on it: added to its recipe, or a recipe over its pixels.
    static func coloring(_ picture: Picture, with operations: [any ColorOperation],
                         in context: isolated RenderContext) throws -> Picture {
        switch picture.content {
        case .recipe(let recipe):
            if let colored = try recipe.coloring(with: operations, in: context) { return Picture(colored) }
        case .conversion(let recipe):
            if let colored = try recipe.coloring(with: operations, in: context) { return Picture(colored) }
        case .pixels:
            break
        }
        let frame = try picture.pixels(in: context)
        return try Recipe(coloring: frame, with: operations, in: context).map(Picture.init) ?? Picture(frame)
    }

    /// This picture with `operations` run on it, in the same pass; nil when it cannot take them
    /// (not 8-bit, too many pieces, or its stage's shader cannot be extended): draw it first.
    func coloring(with operations: [any ColorOperation], in context: isolated RenderContext) throws -> Recipe? {
        guard first.workingFormat == .rgba8, before.count + after.count + operations.count <= Self.mostPieces else { return nil }
        let (steps, more, textures) = try Self.steps(of: operations, firstIndex: before.count + after.count, in: context)
        let extended = Recipe(first: first, others: others, extra: extra + textures, width: width, height: height,
                              before: before, stage: stage, after: after + steps,
                              uniforms: uniforms.merging(more) { $1 })
        return extended.isComposable(in: context) ? extended : nil
    }

    /// `stage` reading this picture on its input 0 at texel centres, its colour run on each read;
    /// nil when this picture is more than colour over a frame, or the stage cannot take it: draw it first.
    func read(by stage: Stage, others: [TextureFrame], extra: [SamplerTexture], width: Int, height: Int,
              uniforms: [String: UniformValue], in context: isolated RenderContext) -> Recipe? {
        guard self.stage == nil, before.isEmpty, first.workingFormat == .rgba8 else { return nil }
        let composed = Recipe(first: first, others: others, extra: self.extra + extra, width: width, height: height,
                              before: after, stage: stage, after: [], uniforms: self.uniforms.merging(uniforms) { $1 })
        return composed.isComposable(in: context) ? composed : nil
    }

    /// The name of the recipe's program (made from names made once: cheap on every frame).
    var programName: String {
        RecipeShader.programName(before: before.map(\.piece), stage: stage?.name, after: after.map(\.piece))
    }

    /// The recipe's one shader, or nil when its stage cannot take its pieces.
    var fragmentShader: String? {
        RecipeShader.fragmentSource(before: before.map(\.piece), stage: stage?.source, after: after.map(\.piece))
    }

    /// Whether the recipe's shader can be made; the answer for a shape is remembered by the context.
    private func isComposable(in context: isolated RenderContext) -> Bool {
        let name = programName
        if let known = context.composableRecipes[name] { return known }
        let composable = fragmentShader != nil
        context.composableRecipes[name] = composable
        return composable
    }

    /// Draws the picture the recipe stands for.
    func render(in context: isolated RenderContext) throws -> TextureFrame {
        let output = try context.makeFrame(width: width, height: height, like: first)
        let name = programName
        guard let source = context.resources.programs[name] == nil ? fragmentShader : "" else {
            throw ELImageError.invalidState(node: name, reason: "the recipe's shader could not be made from its stage and "
                                            + "colour pieces (a recipe is made only where it can be)")
        }
        let program = try context.program(named: name, fragment: source)
        try context.draw(program, into: output, inputs: inputs + extra.map(\.frame)) { program in
            setUniforms(of: program)
        }
        output.markMonochrome(monochrome)
        return output
    }

    package func packed(as format: PixelFormat, colorSpace: ColorSpace, chromaLocation: ChromaLocation,
                chromaDownsampling: ChromaDownsampling, in context: isolated RenderContext) throws -> PackedPlanes {
        if monochrome {
            if first.workingFormat == .rgba8, GrayPack.applies(to: format, width: width, height: height),
               let program = grayPackProgram(chromaLocation: chromaLocation, chromaDownsampling: chromaDownsampling,
                                             in: context) {
                return try GrayPack.pack(format: format, width: width, height: height, timestamp: timestamp,
                                         colorSpace: colorSpace, chromaLocation: chromaLocation, program: program,
                                         inputs: inputs + extra.map(\.frame), setUniforms: setPackUniforms, in: context)
            }
        } else if first.workingFormat == .rgba8,
           MatchedPack420.applies(to: format, width: width, height: height, chromaLocation: chromaLocation,
                                  chromaDownsampling: chromaDownsampling),
           let program = packProgram(chromaLocation: chromaLocation, in: context) {
            return try MatchedPack420.pack(format: format, width: width, height: height, timestamp: timestamp,
                                           colorSpace: colorSpace, chromaLocation: chromaLocation, firstPass: program,
                                           inputs: inputs + extra.map(\.frame), setUniforms: setPackUniforms, in: context)
        }
        return try render(in: context).packed(as: format, colorSpace: colorSpace, chromaLocation: chromaLocation,
                                              chromaDownsampling: chromaDownsampling, in: context)
    }

    /// Whether the pack may read the stage's 3x3 stencil row by row (`RecipePackShader`): a stage
    /// alone, with no colour before or after it.
    private var packsStencilRows: Bool { before.isEmpty && after.isEmpty }

    /// The uniforms, and the size of the picture the pack's pass runs the recipe over
    /// (`deferredOutputSize`; in the gray pack also rgba_to_yuv.fsh's `pictureSize`).
    private func setPackUniforms(of program: ShaderProgram) {
        setUniforms(of: program)
        program.set(.vec2([Float(width), Float(height)]), for: "deferredOutputSize")
        if monochrome { program.set(.vec2([Float(width), Float(height)]), for: "pictureSize") }
    }

    private func setUniforms(of program: ShaderProgram) {
        for (name, value) in uniforms { program.set(value, for: name) }
        for (offset, texture) in extra.enumerated() {
            program.setSampler(texture.sampler, unit: inputs.count + offset)
        }
    }

    /// The recipe as the pack's first pass, compiled once per context; nil when it cannot be run
    /// so or did not compile so (remembered: the pictures are then drawn and packed).
    private func packProgram(chromaLocation: ChromaLocation, in context: isolated RenderContext) -> ShaderProgram? {
        program(named: "pack_420(\(programName))[\(chromaLocation)]", in: context) {
            fragmentShader.flatMap { RecipePackShader.packSource(for: $0, chromaLocation: chromaLocation, stencilRows: packsStencilRows) }
        }
    }

    /// The recipe as the gray pack's Y' pass (rgba_to_yuv.fsh), as `packProgram`.
    private func grayPackProgram(chromaLocation: ChromaLocation, chromaDownsampling: ChromaDownsampling,
                                 in context: isolated RenderContext) -> ShaderProgram? {
        let defines = [("PLANE_KIND", Int(RenderContext.PlaneKind.luma.rawValue)),
                       ("CHROMA_SITING", RenderContext.sitingDefine(chromaLocation)),
                       ("CHROMA_FILTER", chromaDownsampling.shaderDefine)]
        return program(named: "rgba_to_yuv(\(programName))[luma]", in: context) {
            fragmentShader.flatMap { RecipePackShader.grayPackSource(for: $0, defines: defines, stencilRows: packsStencilRows) }
        }
    }

    /// The program `name` made from `source()`, compiled once per context (the source is made only
    /// then); nil when there is no source or it did not compile (remembered).
    private func program(named name: String, in context: isolated RenderContext, source: () -> String?) -> ShaderProgram? {
        if let compiled = context.resources.programs[name] { return compiled }
        guard !context.unpackableShaders.contains(name) else { return nil }
        do {
            guard let source = source() else {
                context.unpackableShaders.insert(name)
                return nil
            }
            return try context.program(named: name, fragment: source)
        } catch {
            context.unpackableShaders.insert(name)
            return nil
        }
    }

    /// The steps of `operations`, numbered from `firstIndex`, with their uniforms and textures
    /// under their prefixes.
    static func steps(of operations: [any ColorOperation], firstIndex: Int, in context: isolated RenderContext)
        throws -> ([ColorStep], [String: UniformValue], [SamplerTexture]) {
        var steps: [ColorStep] = []
        var uniforms: [String: UniformValue] = [:]
        var textures: [SamplerTexture] = []
        for (offset, operation) in operations.enumerated() {
            let piece = operation.colorPiece
            let prefix = piece.prefix(at: firstIndex + offset)
            steps.append(ColorStep(piece: piece, monochrome: operation.producesMonochrome))
            for (name, value) in operation.colorUniforms { uniforms[prefix + name] = value }
            for (name, texture) in try operation.colorTextures(in: context).sorted(by: { $0.key < $1.key }) {
                textures.append(SamplerTexture(sampler: prefix + name, frame: texture))
            }
        }
        return (steps, uniforms, textures)
    }
}
