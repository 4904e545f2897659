/// What an HDR picture says of the display it was graded on and of its own light levels (SMPTE ST
/// 2086 and CTA-861.3), carried with the colour space from the source (a movie's side data) to the
/// encoder (x264's SEI messages) and the container.
public struct HDRMetadata: Sendable, Hashable, CustomStringConvertible {
    /// The mastering display's colour volume (SMPTE ST 2086).
    public struct MasteringDisplay: Sendable, Hashable {
        /// CIE 1931 xy chromaticities of the red, green and blue primaries and of the white point.
        public var red: SIMD2<Double>
        public var green: SIMD2<Double>
        public var blue: SIMD2<Double>
        public var white: SIMD2<Double>
        /// The display's lowest and highest luminance, in cd/m².
        public var minimumLuminance: Double
        public var maximumLuminance: Double

        public init(red: SIMD2<Double>, green: SIMD2<Double>, blue: SIMD2<Double>, white: SIMD2<Double>,
                    minimumLuminance: Double, maximumLuminance: Double) {
            self.red = red
            self.green = green
            self.blue = blue
            self.white = white
            self.minimumLuminance = minimumLuminance
            self.maximumLuminance = maximumLuminance
        }

        /// A BT.2020 / D65 display of `maximumLuminance` cd/m² (1000 by default) down to 0.0001.
        public static func bt2020(maximumLuminance: Double = 1000, minimumLuminance: Double = 0.0001) -> MasteringDisplay {
            MasteringDisplay(red: [0.708, 0.292], green: [0.170, 0.797], blue: [0.131, 0.046], white: [0.3127, 0.3290],
                             minimumLuminance: minimumLuminance, maximumLuminance: maximumLuminance)
        }
    }

    /// The mastering display, when known.
    public var masteringDisplay: MasteringDisplay?
    /// MaxCLL: the brightest pixel of the whole programme, in cd/m² (CTA-861.3); nil when unknown.
    public var maximumContentLightLevel: Int?
    /// MaxFALL: the brightest frame's average, in cd/m²; nil when unknown.
    public var maximumFrameAverageLightLevel: Int?

    public init(masteringDisplay: MasteringDisplay? = nil, maximumContentLightLevel: Int? = nil,
                maximumFrameAverageLightLevel: Int? = nil) {
        self.masteringDisplay = masteringDisplay
        self.maximumContentLightLevel = maximumContentLightLevel
        self.maximumFrameAverageLightLevel = maximumFrameAverageLightLevel
    }

    /// The luminance the brightest pixels reach, in cd/m²: MaxCLL, else the mastering display's
    /// peak, else nil.
    public var peakLuminance: Double? {
        maximumContentLightLevel.map(Double.init) ?? masteringDisplay?.maximumLuminance
    }

    public var description: String {
        var parts: [String] = []
        if let display = masteringDisplay {
            parts.append("mastering display \(display.minimumLuminance)-\(display.maximumLuminance) cd/m²")
        }
        if let maximumContentLightLevel { parts.append("MaxCLL \(maximumContentLightLevel)") }
        if let maximumFrameAverageLightLevel { parts.append("MaxFALL \(maximumFrameAverageLightLevel)") }
        return parts.isEmpty ? "no HDR metadata" : parts.joined(separator: ", ")
    }
}
