/// Skin smoothing that works on every face: an adaptive skin model learnt from each frame, a guided
/// filter on the luma at reduced resolution confined to that skin, the finest texture partly put
/// back, and whitening and sharpening.
///
/// ```swift
/// let beauty = Beauty()          // strength 0.7
/// camera --> beauty --> encoder
/// beauty.strength = 0.4          // takes effect from the next frame
/// beauty.faceRegions = faces     // optional: a detector's faces seed the skin colour
/// beauty.faces = found.facePoints // or faces with landmarks: folds are filled too
/// ```
///
/// How it works (eight draws: three on tiny images, four at 1/f of the size, one at full size;
/// twelve with faces with landmarks):
/// - Skin model (`beauty_skin_*.fsh`): 32x32 grid points over the frame, weighted by where a face
///   is (the `faceRegions` when given, otherwise a broad portrait prior); a 12x12 histogram of
///   their chroma; the most populated skin-like chroma relative to the frame's white, refined by
///   mean shift in chroma and luma, gives the skin's mean and spread in chroma and luma. Nothing
///   is read back to the CPU; the model is blended over frames so that the mask is stable on video.
/// - Guided filter (`beauty_downsample`, `_moments`, `_coefficients`, `_box`): at 1/f of the size
///   (f = radius / 2.5), a = var / (var + ε), b = mean (1 - a) over 5x5 windows; the skin
///   likelihood of each block is a soft distance to the skin model (with luma limits, so that
///   hair, pupils, brows, teeth and eye whites are not skin).
/// - `beauty_apply` at full size: a Y + b on skin, eased off across the strongest local
///   gradients, plus a share of the finest detail so skin is not plastic; the same detail sharpens
///   what is not skin; skin is lifted by whitening.
/// - Faces with landmarks (`faces`): four more passes at 1/f (`beauty_fold_closing`) take a grey
///   closing of the luma over about a fifth of the eye distance, which fills dark valleys narrower
///   than that and nothing else; in each face's lower half and its neck what lies below it is
///   lifted towards it (`folds`), strong gradients are smoothed there too and shadowed skin counts as skin,
///   with the zones feathered (the neck's widely) so that no boundary shows; eyes with their
///   brows, the lips and the nostrils are kept sharp.
///
/// `strength` 0 returns the input frame untouched; the smoothing grows monotonically with
/// `strength` and `smoothing` (the blend, ε and the texture taken away all grow with them).
/// `showsSkinMask` renders the skin likelihood instead of the picture.
public final class Beauty: FrameFilter, PlanDescribing {
    public let inputSlots = InputSlots()
    public let outputs = OutputTargets()

    /// The filter's settings (the numbers 0...1, except `radius`).
    public struct Settings: Sendable, Equatable {
        /// Scales smoothing, whitening and sharpening together; 0 is the identity.
        public var strength: Float = 0.7
        /// How far skin is smoothed.
        public var smoothing: Float = 1
        /// How much skin is brightened.
        public var whitening: Float = 0.3
        /// How much what is not skin (eyes, hair, clothes) is sharpened.
        public var sharpness: Float = 0.3
        /// The smoothing window's radius in pixels, 2...100; `nil` picks 1 % of the shorter side.
        public var radius: Float?
        /// Faces in the frame (at most four are used): the skin colour is learnt from them. Empty:
        /// from a broad prior of where a portrait's face is.
        public var faceRegions: [FaceRegion] = []
        /// Faces with landmarks (at most four are used): folds in their lower half and neck are
        /// filled, their eyes, brows and lips kept sharp.
        public var faces: [FacePoints] = []
        /// How far the folds of `faces` are filled (0: not at all).
        public var folds: Float = 1
        /// Renders the skin likelihood (white = skin) instead of the picture: what is smoothed.
        public var showsSkinMask = false

        public init() {}
    }

    package var planSummary: String {
        "8 passes (skin model: 3 on tiny images; guided filter: 4 at reduced size; 1 at full size), 4 more at reduced size for faces with landmarks; hands on its last as a recipe"
    }

    private let state = Locked(Settings())
    /// The previous frame's skin model (render thread only; locked for the compiler's sake).
    private let history = Locked<SkinModelHistory?>(nil)

    /// The share of the finest detail kept on skin at the least smoothing; it falls to 0 at full.
    static let textureAmount: Float = 0.3
    /// Local gradient magnitudes (0...1 per pixel) over which smoothing is eased off completely.
    static let edgeRange = SIMD2<Float>(0.08, 0.2)
    /// The standard deviation of the luma (0...1 units) that counts as structure rather than
    /// texture at full smoothing: ε = (deviation (0.33 + 0.67 s))², s = strength · smoothing.
    static let edgeDeviation: Float = 0.12
    /// How far each frame moves the skin model towards its own estimate (1: no memory).
    static let modelAdaptation: Float = 0.3
    /// The skin model's grid and histogram sizes (fixed in the shaders).
    static let gridSize = 32, histogramSize = 12
    /// The closing's radius in eye distances: folds up to twice as wide are filled.
    static let foldRadius: Float = 0.1
    /// The most faces with landmarks used (the zones shader's arrays).
    public static let maximumFaces = 4

    /// All settings at once (each clamped as its property is).
    public var settings: Settings {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = Self.sanitized(newValue) } }
    }

    /// 0...1 (default 0.7): scales everything; 0 is the identity. Clamped; NaN means the default.
    public var strength: Float {
        get { settings.strength }
        set { state.withLock { $0.strength = Self.clamp(newValue, neutral: Settings().strength) } }
    }

    /// 0...1 (default 1): how far skin is smoothed. Clamped; NaN means the default.
    public var smoothing: Float {
        get { settings.smoothing }
        set { state.withLock { $0.smoothing = Self.clamp(newValue, neutral: Settings().smoothing) } }
    }

    /// 0...1 (default 0.3): how much skin is brightened. Clamped; NaN means the default.
    public var whitening: Float {
        get { settings.whitening }
        set { state.withLock { $0.whitening = Self.clamp(newValue, neutral: Settings().whitening) } }
    }

    /// 0...1 (default 0.3): how much what is not skin is sharpened. Clamped; NaN means the default.
    public var sharpness: Float {
        get { settings.sharpness }
        set { state.withLock { $0.sharpness = Self.clamp(newValue, neutral: Settings().sharpness) } }
    }

    /// The smoothing radius in pixels, 2...100; `nil` (the default) picks 1 % of the frame's
    /// shorter side. Clamped; NaN means `nil`.
    public var radius: Float? {
        get { settings.radius }
        set { state.withLock { $0.radius = Self.sanitizedRadius(newValue) } }
    }

    /// Faces in the frame, in 0...1 from the top-left corner (at most four are used); empty (the
    /// default) learns the skin colour from a broad portrait prior. Regions are cut to the frame;
    /// empty or non-finite ones are dropped.
    public var faceRegions: [FaceRegion] {
        get { settings.faceRegions }
        set { state.withLock { $0.faceRegions = Self.sanitizedRegions(newValue) } }
    }

    /// Faces with landmarks in 0...1 from the top-left corner (at most four are used): folds in
    /// their lower half and neck are filled, eyes, brows and lips kept sharp (`faceRegions`, which
    /// a detector's boxes give, seed the skin colour). Faces with a value that is not finite are
    /// left out.
    public var faces: [FacePoints] {
        get { settings.faces }
        set { state.withLock { $0.faces = Self.sanitizedFaces(newValue) } }
    }

    /// 0...1 (default 1): how far the folds of `faces` are filled, scaled by `strength`. Clamped;
    /// NaN means the default.
    public var folds: Float {
        get { settings.folds }
        set { state.withLock { $0.folds = Self.clamp(newValue, neutral: Settings().folds) } }
    }

    /// Renders the skin likelihood (white = skin) instead of the picture, at any strength.
    public var showsSkinMask: Bool {
        get { settings.showsSkinMask }
        set { state.withLock { $0.showsSkinMask = newValue } }
    }

    public init(strength: Float = 0.7) {
        self.strength = strength
    }

    public func prepare(in context: isolated RenderContext) throws {
        for pass in Pass.allCases { _ = try context.program(named: pass.name, fragment: pass.source) }
    }

    public func render(_ frame: TextureFrame, in context: isolated RenderContext) throws -> TextureFrame {
        try lastPass(frame, in: context)?.render(in: context) ?? frame
    }

    /// The last pass as a recipe, drawn where its pixels are needed (inside a sink's pack, with the
    /// colour after it); the frame itself when the filter draws nothing at its settings.
    public func renderPicture(_ frame: TextureFrame, in context: isolated RenderContext) throws -> Picture {
        try lastPass(frame, in: context).map(Picture.init) ?? Picture(frame)
    }

    /// Every pass but the last (`beauty_apply`), which is described as a recipe; nil when the
    /// filter draws nothing at its settings.
    private func lastPass(_ frame: TextureFrame, in context: isolated RenderContext) throws -> Recipe? {
        let settings = self.settings
        let amount = settings.strength * settings.smoothing
        let whitening = settings.strength * settings.whitening
        let sharpness = settings.strength * settings.sharpness
        guard amount > 0 || whitening > 0 || sharpness > 0 || settings.showsSkinMask else {
            history.withLock { $0 = nil }
            return nil
        }

        let factor = Self.reduction(radius: settings.radius, width: frame.width, height: frame.height)
        let lowWidth = (frame.width + factor - 1) / factor, lowHeight = (frame.height + factor - 1) / factor
        let texel = SIMD2(1 / Float(frame.width), 1 / Float(frame.height))
        let lowTexel = SIMD2(1 / Float(lowWidth), 1 / Float(lowHeight))
        let deviation = max(Self.edgeDeviation * (0.33 + 0.67 * amount), 1e-3)

        func pass(_ pass: Pass, _ inputs: [TextureFrame], width: Int = lowWidth, height: Int = lowHeight,
                  _ uniforms: [String: UniformValue] = [:]) throws -> TextureFrame {
            try context.renderPass(pass.name, fragment: pass.source, inputs: inputs, width: width, height: height,
                                   like: frame, uniforms: uniforms)
        }
        let reduced = try pass(.downsample, [frame], ["sampleOffset": .vec2(texel * Float(factor) / 4)])
        let grid = Float(Self.gridSize)
        let size = SIMD2(Float(frame.width), Float(frame.height))
        let axes = settings.faces.map { $0.axes(in: size) }
        let points = try pass(.skinSamples, [reduced], width: Self.gridSize, height: Self.gridSize, [
            "sampleOffset": .vec2(SIMD2(repeating: 1 / (4 * grid))),
            "faceRegions": .mat4(Self.regionMatrix(settings.faceRegions)),
            "faceCount": .int(Int32(min(settings.faceRegions.count, 4))),
        ])
        let histogram = try pass(.skinHistogram, [points], width: Self.histogramSize, height: Self.histogramSize)
        let contextID = ObjectIdentifier(context)
        let previous = history.withLock { $0 }.flatMap { $0.matches(contextID, frame.width, frame.height) ? $0.model : nil }
        let model = try pass(.skinModel, [points, histogram, previous ?? points], width: 4, height: 1,
                             ["adaptation": .float(previous == nil ? 1 : Self.modelAdaptation)])
        history.withLock { $0 = SkinModelHistory(model: model, context: contextID, width: frame.width, height: frame.height) }

        let moments = try pass(.moments, [reduced])
        let coefficients = try pass(.coefficients, [moments, reduced, model, points], ["epsilon": .float(deviation * deviation)])
        let smoothed = try pass(.box, [coefficients], ["texelSize": .vec2(lowTexel)])
        let blend = 1 - (1 - amount) * (1 - amount)
        let uniforms: [String: UniformValue] = [
            "texelSize": .vec2(texel),
            "smoothing": .float(blend),
            "textureAmount": .float(Self.textureAmount * (1 - amount)),
            "sharpness": .float(sharpness),
            "whitening": .float(whitening),
            "edgeRange": .vec2(Self.edgeRange),
            "showMask": .float(settings.showsSkinMask ? 1 : 0),
        ]
        func last(_ pass: Pass, _ others: [TextureFrame], _ uniforms: [String: UniformValue]) throws -> Recipe {
            _ = try context.program(named: pass.name, fragment: pass.source)  // (a failure to compile is this node's)
            return Recipe(stage: Recipe.Stage(name: pass.name, source: pass.source, monochrome: false), first: frame,
                          others: others, width: frame.width, height: frame.height, uniforms: uniforms)
        }
        guard !axes.isEmpty else {
            return try last(.apply, [smoothed, model], uniforms)
        }

        // Faces with landmarks: a closing of the block means' luma (four 1-D passes), the last one
        // also working out the faces' zones.
        let largest = axes.map(\.eyeDistance).max() ?? 0
        let radius = Int32(min(max((Self.foldRadius * largest / Float(factor)).rounded(), 1), 16))
        var closing = reduced
        for (stage, direction) in [SIMD2<Int32>(1, 0), SIMD2(0, 1), SIMD2(1, 0), SIMD2(0, 1)].enumerated() {
            let closingUniforms: [String: UniformValue] = ["direction": .ivec2(direction), "radius": .int(radius), "stage": .int(Int32(stage))]
            closing = stage < 3 ? try pass(.foldClosing, [closing], closingUniforms)
                : try pass(.foldZones, [closing, reduced], closingUniforms.merging(Self.zoneUniforms(settings.faces, axes, size)) { $1 })
        }
        return try last(.applyWithFaces, [smoothed, model, closing],
                    uniforms.merging(["folds": .float(settings.strength * settings.folds)]) { $1 })
    }

    /// The faces for the zones pass: their axes, scales and features, and the frame's size.
    static func zoneUniforms(_ faces: [FacePoints], _ axes: [FaceAxes], _ size: SIMD2<Float>) -> [String: UniformValue] {
        [
            "frameSize": .vec2(size),
            "faceCount": .int(Int32(axes.count)),
            "faceAxes": .vec4Array(axes.map { SIMD4(lowHalf: $0.eyesMiddle, highHalf: $0.across) }),
            "faceScales": .vec4Array(axes.map { SIMD4($0.eyeDistance, $0.mouthDistance, 0, 0) }),
            "faceFeatures": .vec4Array(zip(faces, axes).map { features(of: $0, $1, in: size) }),
        ]
    }

    /// Up to four regions as the columns of a 4x4 matrix (x, y, width, height each).
    static func regionMatrix(_ regions: [FaceRegion]) -> [Float] {
        var values = [Float](repeating: 0, count: 16)
        for (index, region) in regions.prefix(4).enumerated() {
            values.replaceSubrange((index * 4)..<(index * 4 + 4), with: [region.x, region.y, region.width, region.height])
        }
        return values
    }

    /// The mouth's middle (across) and half width, and the nose (across, down), in face units.
    static func features(of face: FacePoints, _ axes: FaceAxes, in size: SIMD2<Float>) -> SIMD4<Float> {
        let mouthLeft = axes.coordinates(of: face.mouthLeft * size), mouthRight = axes.coordinates(of: face.mouthRight * size)
        let nose = axes.coordinates(of: face.nose * size)
        return SIMD4((mouthLeft.x + mouthRight.x) / 2, abs(mouthRight.x - mouthLeft.x) / 2, nose.x, nose.y)
    }

    /// The downsampling factor: the radius over 2.5 (the 5x5 window's half-width), at least 1.
    static func reduction(radius: Float?, width: Int, height: Int) -> Int {
        let radius = radius ?? Float(min(width, height)) / 100
        return max(1, Int((radius / 2.5).rounded()))
    }

    private static func clamp(_ value: Float, neutral: Float) -> Float {
        FilterParameter.clamp(value, to: 0...1, neutral: neutral)
    }

    private static func sanitizedRadius(_ radius: Float?) -> Float? {
        guard let radius, !radius.isNaN else { return nil }
        return min(max(radius, 2), 100)
    }

    private static func sanitized(_ settings: Settings) -> Settings {
        let defaults = Settings()
        var result = settings
        result.strength = clamp(settings.strength, neutral: defaults.strength)
        result.smoothing = clamp(settings.smoothing, neutral: defaults.smoothing)
        result.whitening = clamp(settings.whitening, neutral: defaults.whitening)
        result.sharpness = clamp(settings.sharpness, neutral: defaults.sharpness)
        result.radius = sanitizedRadius(settings.radius)
        result.faceRegions = sanitizedRegions(settings.faceRegions)
        result.faces = sanitizedFaces(settings.faces)
        result.folds = clamp(settings.folds, neutral: defaults.folds)
        return result
    }

    private static func sanitizedFaces(_ faces: [FacePoints]) -> [FacePoints] {
        Array(faces.filter(\.isFinite).prefix(maximumFaces))
    }

    private static func sanitizedRegions(_ regions: [FaceRegion]) -> [FaceRegion] {
        Array(regions.compactMap(\.clippedToFrame).prefix(4))
    }

    private enum Pass: CaseIterable {
        case downsample, skinSamples, skinHistogram, skinModel, moments, coefficients, box, foldClosing, foldZones, apply, applyWithFaces

        var name: String {
            switch self {
            case .downsample: "beauty_downsample"
            case .skinSamples: "beauty_skin_samples"
            case .skinHistogram: "beauty_skin_histogram"
            case .skinModel: "beauty_skin_model"
            case .moments: "beauty_moments"
            case .coefficients: "beauty_coefficients"
            case .box: "beauty_box"
            case .foldClosing: "beauty_fold_closing"
            case .foldZones: Self.zonesVariant.name
            case .apply: "beauty_apply"
            case .applyWithFaces: Self.facesVariant.name
            }
        }

        /// The final pass with the faces compiled in (`#ifdef FACES`): run only for frames with
        /// faces, so that the plain pass costs what it did before them. (Name and text made once.)
        private static let facesVariant = Compiled(ShaderVariant("beauty_apply", source: EmbeddedShaders.beautyApplyFsh, defines: [("FACES", 1)]))
        /// The closing's last pass, which also works out the faces' zones (`#ifdef ZONES`).
        private static let zonesVariant = Compiled(ShaderVariant("beauty_fold_closing", source: EmbeddedShaders.beautyFoldClosingFsh,
                                                                 defines: [("ZONES", 1)]))

        private struct Compiled {
            let name: String, source: String
            init(_ variant: ShaderVariant) { (name, source) = (variant.name, variant.source) }
        }

        var source: String {
            switch self {
            case .downsample: EmbeddedShaders.beautyDownsampleFsh
            case .skinSamples: EmbeddedShaders.beautySkinSamplesFsh
            case .skinHistogram: EmbeddedShaders.beautySkinHistogramFsh
            case .skinModel: EmbeddedShaders.beautySkinModelFsh
            case .moments: EmbeddedShaders.beautyMomentsFsh
            case .coefficients: EmbeddedShaders.beautyCoefficientsFsh
            case .box: EmbeddedShaders.beautyBoxFsh
            case .foldClosing: EmbeddedShaders.beautyFoldClosingFsh
            case .apply: EmbeddedShaders.beautyApplyFsh
            case .applyWithFaces: Self.facesVariant.source
            case .foldZones: Self.zonesVariant.source
            }
        }
    }
}

/// The skin model of the last frame Beauty rendered, with the context and the frame size it is for.
private struct SkinModelHistory: Sendable {
    let model: TextureFrame
    let context: ObjectIdentifier
    let width: Int, height: Int

    func matches(_ context: ObjectIdentifier, _ width: Int, _ height: Int) -> Bool {
        self.context == context && self.width == width && self.height == height
    }
}
