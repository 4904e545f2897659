/// Caps that keep one fuzz input cheap, so that the fuzzer tries many inputs a second.
enum FuzzLimits {
    /// The most frames read from one input; enough to pass the first frame boundary twice.
    static let framesPerInput = 3
}
