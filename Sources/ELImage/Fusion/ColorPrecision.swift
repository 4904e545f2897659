/// What a fused colour chain does between its pieces.
public enum ColorPrecision: Sendable, Hashable {
    /// Round to 8 bits between pieces, reproducing the separate nodes (the default).
    case matchingSeparatePasses
    /// Keep full float precision between pieces (still clamped to [0, 1]).
    case full
}
