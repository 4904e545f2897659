/// A fragment (MP4) or a sync point (Annex B) that reached the disk.
public struct FragmentInfo: Sendable, Equatable {
    /// 1 for the first fragment.
    public let index: Int
    /// Frames in the file up to and including this fragment: what survives a crash from now on.
    public let framesCompleted: Int
    /// Stream time covered up to the end of this fragment.
    public let duration: Duration
    /// File size after the fragment.
    public let bytes: Int64
}
