import ELImage

/// Something that finds metadata (faces, codes) in a small picture. `DetectorOutput` calls it
/// on its worker thread, one picture at a time, newest first; it may keep state between pictures
/// (tracking).
public protocol MetadataDetector: Sendable {
    /// What it detects, for messages ("faces", "codes").
    var name: String { get }

    /// The analysis size it works best at: frames are shrunk to fit inside it (aspect kept).
    var preferredAnalysisSize: (width: Int, height: Int) { get }

    /// What it looks at: `.gray8` (luma, the default) or `.rgba` (colour).
    var analysisFormat: PixelFormat { get }

    /// Finds what it looks for in `image`.
    func detect(in image: AnalysisImage) throws -> [Detection]
}

extension MetadataDetector {
    /// Luma: what the Haar cascades, zxing-cpp and the motion detector look at.
    public var analysisFormat: PixelFormat { .gray8 }
}
