import CGLES
import Foundation

/// Reuses textures (with their framebuffers) across frames.
///
/// A request is served from the pool when a texture with an equal `TextureKey` is idle, and only
/// otherwise allocated. Idle textures unused for `idleLifetime` are deleted, and the pool never holds
/// more than `maximumIdleBytes` of idle textures.
/// Lives in a `RenderContext` (`RenderContext.makeFrame` takes frames from it); use it only on that
/// context's render thread.
public final class FramePool {
    /// Counters describing the pool.
    public struct Counters: Sendable, Equatable {
        /// Requests served with an idle texture.
        public var hits = 0
        /// Requests that allocated a new texture.
        public var misses = 0
        /// Textures deleted by trimming.
        public var trimmed = 0
        /// Idle textures and their bytes.
        public var idleTextures = 0
        public var idleBytes = 0
        /// Textures in use by frames and their bytes.
        public var texturesInUse = 0
        public var bytesInUse = 0
        /// All texture memory the pool accounts for (idle and in use).
        public var bytesHeld: Int { idleBytes + bytesInUse }
    }

    /// How long an idle texture is kept before it is deleted.
    public var idleLifetime: Duration = .seconds(2)
    /// The most idle texture memory kept; past it the least recently used textures are deleted.
    public var maximumIdleBytes = 256 << 20

    public private(set) var statistics = Counters()

    private struct IdleTexture {
        let texture: PooledTexture
        let since: ContinuousClock.Instant
    }

    private var idle: [TextureKey: [IdleTexture]] = [:]
    private let maximumTextureSize: Int
    private var lastTrim = ContinuousClock.now

    init(maximumTextureSize: Int) {
        self.maximumTextureSize = maximumTextureSize
    }

    /// A frame backed by an idle texture with `key`, or by a new one; its texture goes back to the
    /// pool through `resources` when the frame is released.
    func frame(for key: TextureKey, timestamp: MediaTime, sequenceNumber: Int, colorSpace: ColorSpace,
               chromaLocation: ChromaLocation, resources: RenderResources) throws -> TextureFrame {
        let texture = try take(key)
        return TextureFrame(texture: texture.texture, framebuffer: texture.framebuffer, key: key,
                            timestamp: timestamp, sequenceNumber: sequenceNumber, colorSpace: colorSpace,
                            chromaLocation: chromaLocation, resources: resources)
    }

    private func take(_ key: TextureKey) throws -> PooledTexture {
        trimIfDue()
        if let reused = idle[key]?.popLast() {
            statistics.hits += 1
            statistics.idleTextures -= 1
            statistics.idleBytes -= key.byteCount
            statistics.texturesInUse += 1
            statistics.bytesInUse += key.byteCount
            return reused.texture
        }
        let texture = try allocate(key)
        statistics.misses += 1
        statistics.texturesInUse += 1
        statistics.bytesInUse += key.byteCount
        return texture
    }

    /// Takes back a texture whose frame was released.
    func recycle(_ texture: PooledTexture) {
        statistics.texturesInUse -= 1
        statistics.bytesInUse -= texture.key.byteCount
        idle[texture.key, default: []].append(IdleTexture(texture: texture, since: .now))
        statistics.idleTextures += 1
        statistics.idleBytes += texture.key.byteCount
        if statistics.idleBytes > maximumIdleBytes { trim(keepingIdleBytes: maximumIdleBytes) }
    }

    /// Deletes idle textures older than `idleLifetime`.
    public func trim() {
        let cutoff = ContinuousClock.now - idleLifetime
        for (key, entries) in idle {
            let (old, fresh) = (entries.filter { $0.since < cutoff }, entries.filter { $0.since >= cutoff })
            old.forEach { delete($0.texture) }
            idle[key] = fresh.isEmpty ? nil : fresh
        }
        lastTrim = .now
    }

    /// Deletes the least recently used idle textures until at most `bytes` are idle.
    public func trim(keepingIdleBytes bytes: Int) {
        var all = idle.values.flatMap { $0 }.sorted { $0.since < $1.since }
        while statistics.idleBytes > bytes, !all.isEmpty {
            let oldest = all.removeFirst()
            idle[oldest.texture.key]?.removeAll { $0.texture.texture == oldest.texture.texture }
            if idle[oldest.texture.key]?.isEmpty == true { idle[oldest.texture.key] = nil }
            delete(oldest.texture)
        }
    }

    /// Deletes every idle texture (the context is going away, or memory is wanted back).
    func deleteAll() {
        trim(keepingIdleBytes: 0)
    }

    private func trimIfDue() {
        if ContinuousClock.now - lastTrim > .milliseconds(500) { trim() }
    }

    private func delete(_ texture: PooledTexture) {
        var framebuffer = texture.framebuffer
        var name = texture.texture
        glDeleteFramebuffers(1, &framebuffer)
        glDeleteTextures(1, &name)
        statistics.idleTextures -= 1
        statistics.idleBytes -= texture.key.byteCount
        statistics.trimmed += 1
    }

    private func allocate(_ key: TextureKey) throws -> PooledTexture {
        guard key.width > 0, key.height > 0, key.width <= maximumTextureSize, key.height <= maximumTextureSize else {
            throw ELImageError.invalidInput(
                what: "a \(key.width)x\(key.height) texture is not possible",
                hint: "sizes must be 1...\(maximumTextureSize) on this GPU; scale or crop the image first")
        }
        var texture: GLuint = 0
        glGenTextures(1, &texture)
        glBindTexture(GLenum(GL_TEXTURE_2D), texture)
        glTexStorage2D(GLenum(GL_TEXTURE_2D), 1, GLenum(key.format.internalFormat), GLsizei(key.width), GLsizei(key.height))
        glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_MIN_FILTER), key.filtering.glValue)
        glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_MAG_FILTER), key.filtering.glValue)
        glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_WRAP_S), key.wrap.glValue)
        glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_WRAP_T), key.wrap.glValue)
        var framebuffer: GLuint = 0
        glGenFramebuffers(1, &framebuffer)
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), framebuffer)
        glFramebufferTexture2D(GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_TEXTURE_2D), texture, 0)
        let status = glCheckFramebufferStatus(GLenum(GL_FRAMEBUFFER))
        let error = glGetError()
        guard status == GL_FRAMEBUFFER_COMPLETE, error == GL_NO_ERROR else {
            glDeleteFramebuffers(1, &framebuffer)
            glDeleteTextures(1, &texture)
            if error == GL_OUT_OF_MEMORY {
                throw ELImageError.gl(call: "glTexStorage2D(\(key))", code: error)
            }
            throw ELImageError.incompleteFramebuffer(status: status, width: key.width, height: key.height)
        }
        return PooledTexture(texture: texture, framebuffer: framebuffer, key: key)
    }
}
