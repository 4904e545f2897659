import CGLES
import Synchronization

/// An image on the GPU: a texture with a framebuffer to render into it, its size and format, and
/// the presentation time of the picture it holds.
///
/// Frames are freed by ARC: when the last reference goes, the texture returns to its context's
/// `FramePool` on the render thread (a frame keeps its context's resources, not the context).
/// There is nothing to lock or unlock. A frame's pixels never
/// change after the node that made it has rendered them, so any number of targets may hold it.
public final class TextureFrame: Sendable {
    /// The GL texture name (valid in the owning context and its shared contexts).
    public let texture: GLuint
    /// A framebuffer with `texture` attached as colour 0.
    public let framebuffer: GLuint
    public let key: TextureKey
    /// When this picture is to be presented.
    public let timestamp: MediaTime
    /// The picture's number in its source's stream: 0 for the first picture of the source's run,
    /// counting every frame the source made or lost before it (dropped for being late or replaced
    /// by a newer one, skipped by a camera's driver, damaged), so numbers jump where frames were
    /// lost. A filter's output has its input's number; frames no source made have 0.
    public let sequenceNumber: Int
    /// The colour space of the picture's source, kept for the sinks' tags (encoder VUI, files).
    /// RGBA frames hold R'G'B' in the source's primaries and transfer.
    public let colorSpace: ColorSpace
    /// Where the chroma of the picture's Y'CbCr source was sited, kept so that sinks writing
    /// Y'CbCr (Y4M files) can site theirs the same and need not resample; `.left` for RGB sources.
    public let chromaLocation: ChromaLocation
    /// Whether every pixel is gray (R = G = B), as a grayscale filter's output is: Y'CbCr sinks then
    /// compute only Y' and write constant chroma. Set by the node that rendered the frame, before
    /// delivering it (`markMonochrome`); never changed afterwards.
    public var isMonochrome: Bool { monochrome.load(ordering: .relaxed) }
    private let monochrome = Atomic<Bool>(false)
    /// Whether every pixel's alpha is 1, as in a picture converted from Y'CbCr or RGB without
    /// alpha: filters that would filter alpha may then leave it (`BilateralBlur`). Set like
    /// `isMonochrome` (`markOpaque`); false when unknown.
    public var isOpaque: Bool { opaque.load(ordering: .relaxed) }
    private let opaque = Atomic<Bool>(false)
    private let resources: RenderResources
    /// For a retimed frame: the frame that owns the texture (kept alive, recycled by it).
    private let owner: TextureFrame?

    init(texture: GLuint, framebuffer: GLuint, key: TextureKey, timestamp: MediaTime, sequenceNumber: Int,
         colorSpace: ColorSpace, chromaLocation: ChromaLocation, resources: RenderResources) {
        self.texture = texture
        self.framebuffer = framebuffer
        self.key = key
        self.timestamp = timestamp
        self.sequenceNumber = sequenceNumber
        self.colorSpace = colorSpace
        self.chromaLocation = chromaLocation
        self.resources = resources
        self.owner = nil
    }

    private init(sharing frame: TextureFrame, timestamp: MediaTime) {
        texture = frame.texture
        framebuffer = frame.framebuffer
        key = frame.key
        self.timestamp = timestamp
        sequenceNumber = frame.sequenceNumber
        colorSpace = frame.colorSpace
        chromaLocation = frame.chromaLocation
        resources = frame.resources
        owner = frame.owner ?? frame
        // The same pixels: gray and opaque as the frame is (it was delivered, so they are set).
        monochrome.store(frame.isMonochrome, ordering: .relaxed)
        opaque.store(frame.isOpaque, ordering: .relaxed)
    }

    /// Marks the frame gray or not; only the node that rendered it, before delivering it.
    func markMonochrome(_ value: Bool) {
        monochrome.store(value, ordering: .relaxed)
    }

    /// Marks the frame opaque or not; only the node that rendered it, before delivering it.
    func markOpaque(_ value: Bool) {
        opaque.store(value, ordering: .relaxed)
    }

    /// The same picture presented at `timestamp`: shares this frame's texture (no copy; pixels
    /// never change once rendered) and keeps it alive, gray and opaque as this frame is, with its
    /// sequence number. For
    /// frame-rate conversion, which shows one picture in several frame slots.
    public func retimed(to timestamp: MediaTime) -> TextureFrame {
        TextureFrame(sharing: self, timestamp: timestamp)
    }

    public var width: Int { key.width }
    public var height: Int { key.height }
    public var format: TextureFormat { key.format }
    /// The format a filter renders this frame's successors in: half float after a half-float
    /// picture (a 10- or 16-bit source keeps its precision through the chain), else 8-bit RGBA.
    public var workingFormat: TextureFormat { key.format == .rgba16f ? .rgba16f : .rgba8 }

    deinit {
        guard owner == nil else { return }
        resources.recycle(PooledTexture(texture: texture, framebuffer: framebuffer, key: key))
    }
}

/// A texture and its framebuffer, owned by a `FramePool` while no frame uses them.
struct PooledTexture: Sendable {
    let texture: GLuint
    let framebuffer: GLuint
    let key: TextureKey
}
