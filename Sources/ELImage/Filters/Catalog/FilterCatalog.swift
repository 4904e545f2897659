/// The filters known by name, with their parameters, ranges and defaults: what `elimage filters`
/// lists and `elimage run --filter NAME:key=value` makes, and what the reference outputs and the
/// conformance tests run, one entry a filter.
///
/// ```swift
/// let blur = try FilterCatalog.standard.make("blur", ["sigma": 3])
/// camera --> blur --> encoder
/// ```
public struct FilterCatalog: Sendable {
    /// One parameter of a filter: its name, the values it takes, its default.
    public struct Parameter: Sendable {
        public let name: String
        public let range: ClosedRange<Double>
        public let defaultValue: Double
        /// What it does, in a few words ("" when its name says it).
        public let summary: String
    }

    /// A node with one input and one output.
    public typealias Filter = ImageOutput & ImageInput

    /// A filter: its name, what it does, its parameters, and how to make it.
    public struct Entry: Sendable {
        public let name: String
        public let summary: String
        public let parameters: [Parameter]
        let makeFilter: @Sendable ([String: Double]) throws -> Filter

        /// Makes the filter with `values` by parameter name (those not given take their defaults).
        /// - Throws: `ELImageError.invalidInput` naming a parameter the filter does not have, or a
        ///   value outside its range (NaN included); what the filter's own initializer throws.
        public func make(_ values: [String: Double] = [:]) throws -> Filter {
            for (key, value) in values {
                guard let parameter = parameters.first(where: { $0.name == key }) else {
                    let known = parameters.isEmpty ? "it takes none" : "it has: " + parameters.map(\.name).joined(separator: ", ")
                    throw ELImageError.invalidInput(what: "filter '\(name)' has no parameter '\(key)'", hint: known)
                }
                guard parameter.range.contains(value) else {
                    throw ELImageError.invalidInput(
                        what: "filter '\(name)': \(key)=\(value) is outside \(parameter.range.lowerBound)...\(parameter.range.upperBound)",
                        hint: "the default is \(parameter.defaultValue)")
                }
            }
            return try makeFilter(values)
        }
    }

    /// The filters, in the order `elimage filters` lists them.
    public let entries: [Entry]

    /// The entry named `name`, or nil.
    public func entry(named name: String) -> Entry? { entries.first { $0.name == name } }

    /// Makes the filter named `name` with `values` (`Entry.make(_:)`).
    /// - Throws: `ELImageError.invalidInput` for a name the catalogue does not have, and what `Entry.make(_:)` throws.
    public func make(_ name: String, _ values: [String: Double] = [:]) throws -> Filter {
        guard let entry = entry(named: name) else {
            throw ELImageError.invalidInput(what: "unknown filter '\(name)'",
                                            hint: "the catalogue has: " + entries.map(\.name).joined(separator: ", "))
        }
        return try entry.make(values)
    }

    public static let standard = FilterCatalog(entries: [
        entry("grayscale", "BT.709 luma gray", []) { _ in Grayscale() },
        entry("brightness", "adds to R, G and B", [p("brightness", -1...1, 0, "amount added")]) { v in
            Brightness(Float(v["brightness"] ?? 0))
        },
        entry("contrast", "scales around mid-gray", [p("contrast", 0...4, 1, "1 is unchanged")]) { v in
            Contrast(Float(v["contrast"] ?? 1))
        },
        entry("saturation", "scales colourfulness", [p("saturation", 0...4, 1, "0 is gray, 1 unchanged")]) { v in
            Saturation(Float(v["saturation"] ?? 1))
        },
        entry("exposure", "multiplies by 2^ev", [p("ev", -10...10, 0, "stops")]) { v in Exposure(Float(v["ev"] ?? 0)) },
        entry("gamma", "raises to a power", [p("gamma", 0.01...10, 1, "1 is unchanged")]) { v in Gamma(Float(v["gamma"] ?? 1)) },
        entry("hue", "rotates hue", [p("degrees", -360...360, 0, "rotation")]) { v in Hue(degrees: Float(v["degrees"] ?? 0)) },
        entry("whitebalance", "warm/cool and green/magenta", [p("temperature", -1...1, 0, "warmer above 0"),
                                                              p("tint", -1...1, 0, "magenta above 0")]) { v in
            WhiteBalance(temperature: Float(v["temperature"] ?? 0), tint: Float(v["tint"] ?? 0))
        },
        entry("levels", "input/output black and white points", [
            p("inputBlack", 0...1, 0, ""), p("inputWhite", 0...1, 1, ""), p("gamma", 0.1...10, 1, ""),
            p("outputBlack", 0...1, 0, ""), p("outputWhite", 0...1, 1, ""),
        ]) { v in
            Levels(inputBlack: Float(v["inputBlack"] ?? 0), inputWhite: Float(v["inputWhite"] ?? 1),
                   gamma: Float(v["gamma"] ?? 1), outputBlack: Float(v["outputBlack"] ?? 0),
                   outputWhite: Float(v["outputWhite"] ?? 1))
        },
        entry("blur", "Gaussian blur (separable)", [p("sigma", 0...Double(GaussianBlur.maximumSigma), 2, "pixels")]) { v in
            GaussianBlur(sigma: Float(v["sigma"] ?? 2))
        },
        entry("boxblur", "box blur", [p("radius", 0...Double(BoxBlur.maximumRadius), 2, "pixels")]) { v in
            BoxBlur(radius: Int(v["radius"] ?? 2))
        },
        entry("bilateral", "edge-preserving 5x5 blur", [p("spatialSigma", 0.1...10, 2, "pixels"),
                                                        p("rangeSigma", 0.01...10, 0.1, "colour distance")]) { v in
            BilateralBlur(spatialSigma: Float(v["spatialSigma"] ?? 2), rangeSigma: Float(v["rangeSigma"] ?? 0.1))
        },
        entry("tonemap", "HDR (PQ, HLG) to SDR BT.709 by BT.2390", [
            p("peak", 48...1000, 203, "cd/m² of SDR white"), p("sourcePeak", 100...10000, 1000, "when the input's metadata says none"),
        ]) { v in ToneMapping(targetPeak: v["peak"] ?? 203, fallbackSourcePeak: v["sourcePeak"] ?? 1000) },
        entry("sharpen", "unsharp mask", [p("amount", 0...4, 0.5, "")]) { v in Sharpen(amount: Float(v["amount"] ?? 0.5)) },
        entry("sobel", "Sobel edges", [p("strength", 0...10, 1, "")]) { v in SobelEdges(strength: Float(v["strength"] ?? 1)) },
        entry("beauty", "skin smoothing that keeps texture", [
            p("strength", 0...1, 0.7, "overall"), p("smoothing", 0...1, 1, "skin smoothing"),
            p("whitening", 0...1, 0.3, "brightening"), p("sharpness", 0...1, 0.3, "detail outside skin"),
            p("folds", 0...1, 1, "deep folds filled in faces found by --detect faces"),
            p("mask", 0...1, 0, "1: output the skin mask (white = smoothed as skin)"),
        ]) { v in
            let beauty = Beauty(strength: Float(v["strength"] ?? 0.7))
            if let folds = v["folds"] { beauty.folds = Float(folds) }
            if let smoothing = v["smoothing"] { beauty.smoothing = Float(smoothing) }
            if let whitening = v["whitening"] { beauty.whitening = Float(whitening) }
            if let sharpness = v["sharpness"] { beauty.sharpness = Float(sharpness) }
            beauty.showsSkinMask = (v["mask"] ?? 0) >= 0.5
            return beauty
        },
        entry("reshape", "slimmer face, larger eyes (from face landmarks, found on the input)", [
            p("slimming", 0...1, 0.5, "lower face narrowed"), p("eyes", 0...1, 0.5, "eyes enlarged"),
        ]) { v in FaceReshape(slimming: Float(v["slimming"] ?? 0.5), eyeEnlargement: Float(v["eyes"] ?? 0.5)) },
        entry("backgroundblur", "blurs what is not a person (people found on the input)", [
            p("strength", 0...1, 0.7, "blur: strength x 3 % of the frame's height"),
        ]) { v in BackgroundBlur(strength: Float(v["strength"] ?? 0.7)) },
        entry("backgroundreplace", "puts the people found on the input over --background PICTURE", [
            p("wrap", 0...1, 0.35, "the new background's light at the person's edge"),
        ]) { v in try BackgroundReplace(wrap: Float(v["wrap"] ?? 0.35)) },
        entry("personmask", "the people found on the input as a mask: white person, black background", []) { _ in PersonMaskFilter() },
        entry("crop", "a rectangle of the picture", [p("x", 0...16384, 0, ""), p("y", 0...16384, 0, ""),
                                                      p("width", 1...16384, 16384, ""), p("height", 1...16384, 16384, "")]) { v in
            Crop(Crop.Region(x: Int(v["x"] ?? 0), y: Int(v["y"] ?? 0), width: Int(v["width"] ?? 16384),
                             height: Int(v["height"] ?? 16384)))
        },
        entry("scale", "bilinear resize (0 keeps the input's size)", [p("width", 0...16384, 0, "pixels"),
                                                                      p("height", 0...16384, 0, "pixels")]) { v in
            let width = Int(v["width"] ?? 0), height = Int(v["height"] ?? 0)
            return Passthrough(outputSize: width > 0 && height > 0 ? (width, height) : nil)
        },
    ])

    private static func p(_ name: String, _ range: ClosedRange<Double>, _ value: Double, _ summary: String) -> Parameter {
        Parameter(name: name, range: range, defaultValue: value, summary: summary)
    }

    private static func entry(_ name: String, _ summary: String, _ parameters: [Parameter],
                              make: @escaping @Sendable ([String: Double]) throws -> Filter) -> Entry {
        Entry(name: name, summary: summary, parameters: parameters, makeFilter: make)
    }
}
