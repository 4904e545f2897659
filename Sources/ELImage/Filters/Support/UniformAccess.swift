extension ShaderFilter {
    /// The stored value of float uniform `name`, or `fallback` when it was never set.
    func floatUniform(_ name: String, or fallback: Float) -> Float {
        if case .float(let value)? = uniformValues[name] { return value }
        return fallback
    }
}

extension PointFilter {
    /// The stored value of the piece's float uniform `name`, or `fallback`.
    func pieceFloat(_ name: String, or fallback: Float) -> Float {
        floatUniform(colorPiece.prefix(at: 0) + name, or: fallback)
    }

    /// Stores float uniform `name` clamped to `range` (NaN becomes `neutral`).
    func setPieceFloat(_ name: String, _ value: Float, in range: ClosedRange<Float>, neutral: Float) {
        setPieceUniform(name, .float(FilterParameter.clamp(value, to: range, neutral: neutral)))
    }
}
