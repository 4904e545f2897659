/// Something that finds metadata (faces, codes) in a small luma picture. `DetectorOutput` calls it
/// on its worker thread, one picture at a time, newest first; it may keep state between pictures
/// (tracking).
public protocol MetadataDetector: Sendable {
    /// What it detects, for messages ("faces", "codes").
    var name: String { get }

    /// The analysis size it works best at: frames are shrunk to fit inside it (aspect kept).
    var preferredAnalysisSize: (width: Int, height: Int) { get }

    /// Finds what it looks for in `image`.
    func detect(in image: LumaImage) throws -> [Detection]
}
