/// Caps that keep one fuzz input cheap, so that the fuzzer tries many inputs a second. Memory is
/// bounded by the product's own `InputLimits`, as in the CLI: Debian 12's libavformat sizes a
/// fragment's sample index from the count its `trun` box states, and a 1.7 KB file asking for
/// 2.8 GB is refused by the same block limit users get.
enum FuzzLimits {
    /// The most frames read from one input; enough to pass the first frame boundary twice.
    static let framesPerInput = 3
}
