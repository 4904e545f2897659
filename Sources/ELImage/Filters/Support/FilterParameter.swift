/// Keeps filter parameters inside their documented ranges, so that a bad value (NaN, infinity,
/// out of range) never reaches a shader.
enum FilterParameter {
    /// `value` clamped to `range`; NaN becomes `neutral`.
    static func clamp(_ value: Float, to range: ClosedRange<Float>, neutral: Float) -> Float {
        guard !value.isNaN else { return neutral }
        return min(max(value, range.lowerBound), range.upperBound)
    }

    /// Throws `ELImageError.invalidInput` unless every value is finite.
    static func requireFinite(_ values: [Float], what: String) throws {
        guard values.allSatisfy(\.isFinite) else {
            throw ELImageError.invalidInput(what: "\(what) contains a value that is not finite (NaN or infinity)",
                                            hint: "pass finite numbers")
        }
    }
}
