import ELImage

/// The matrix and range the user forced with --matrix and --range.
struct ColorOverride: Sendable {
    var matrix: ColorMatrix?
    var range: ColorRange?

    var isEmpty: Bool { matrix == nil && range == nil }

    /// `colorSpace` with the forced matrix and range.
    func apply(to colorSpace: ColorSpace) -> ColorSpace {
        var result = colorSpace
        if let matrix { result = ColorSpace(matrix: matrix, range: result.range) }
        if let range { result.range = range }
        return result
    }
}
