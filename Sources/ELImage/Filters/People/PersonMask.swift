/// Where the people are in one analysed frame: a small map of the probability that each place
/// shows a person (255) rather than background (0), found by a segmentation model
/// (`PersonSegmenter` in ELImageDetection) on a shrunken frame.
///
/// The map covers the whole frame (row 0 is the top), whatever its size: the filters that use it
/// (`BackgroundBlur`, `BackgroundReplace`, `PersonMaskFilter`) scale it to each frame and refine
/// its edges on the GPU, guided by the frame's own colours.
public struct PersonMask: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// `width * height` values, row by row, top row first: 0 background ... 255 person.
    public let values: [UInt8]
    /// The analysed frame's number and time (what the mask was found in).
    public let frame: Int
    public let time: MediaTime

    /// - Throws: `ELImageError.invalidInput` when `values` does not hold `width * height` values.
    public init(width: Int, height: Int, values: [UInt8], frame: Int = 0, time: MediaTime = .zero) throws {
        guard width > 0, height > 0, values.count == width * height else {
            throw ELImageError.invalidInput(what: "a person mask of \(width)x\(height) with \(values.count) values",
                                            hint: "give width * height values, row by row")
        }
        self.width = width
        self.height = height
        self.values = values
        self.frame = frame
        self.time = time
    }

    /// The share of the frame that is person (values of 128 and more), 0...1.
    public var coverage: Double {
        Double(values.reduce(0) { $0 + ($1 >= 128 ? 1 : 0) }) / Double(values.count)
    }

    /// The value at column `x`, row `y` of the mask (clamped to its edges).
    public func value(x: Int, y: Int) -> UInt8 {
        values[min(max(y, 0), height - 1) * width + min(max(x, 0), width - 1)]
    }
}

/// A filter steered by a person mask (`BackgroundBlur`, `BackgroundReplace`, `PersonMaskFilter`):
/// give it each new mask from any thread (ELImageDetection's `follow(_:)` does that with a
/// segmenter's metadata); it keeps using the newest one until the next arrives.
public protocol PersonMaskFollowing: AnyObject, Sendable {
    /// The newest mask; nil until the first analysis.
    var personMask: PersonMask? { get set }
}
