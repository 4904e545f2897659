/// How an RGBA picture's chroma is filtered down to subsampled Y'CbCr (4:2:0, 4:2:2).
public enum ChromaDownsampling: Sendable, CaseIterable {
    /// The average around each chroma sample's site: [1 2 1]/4 where it is co-sited with a luma
    /// sample, [1 1]/2 where it sits between two. Cheapest; Y'CbCr that went through RGBA comes
    /// back with its chroma slightly blurred (a [1 6 1]/8 filter per subsampled direction).
    case average
    /// The average sharpened by [-1 8 -1]/6 across neighbouring chroma samples, matched to the
    /// bilinear interpolation that turns Y'CbCr into RGBA: Y'CbCr written back after going
    /// through RGBA unchanged keeps its chroma (about 60 dB PSNR on photographs, against 46–50
    /// with `average`). Two passes: the average at every chroma site, as Cb Cr, into a half-float
    /// frame, then the sharpening (2.25 reads a 4:2:0 chroma sample, the four samples of a texel
    /// sharing them, instead of 36 to 49 for the filter in one pass). The default of every sink
    /// that packs Y'CbCr.
    case matched

    /// rgba_to_yuv.fsh's `CHROMA_FILTER`.
    var shaderDefine: Int {
        switch self {
        case .average: 0
        case .matched: 1
        }
    }
}
