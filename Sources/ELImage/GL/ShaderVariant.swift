/// A shader source specialised with `#define`s at compile time.
///
/// Branching on a uniform is not free everywhere: software rasterizers (llvmpipe) and many GPUs
/// run every side of a divergent-looking `if` under a mask, so a shader that picks its behaviour
/// with a uniform pays for all of it. Variants pick it with the preprocessor instead, one program
/// each, cached by `name`.
public struct ShaderVariant: Sendable, Hashable {
    /// The cache key, e.g. "yuv_to_rgba[PLANE_LAYOUT=1]".
    public let name: String
    private let baseSource: String
    private let defines: [(String, Int)]

    /// A variant of `source` with `defines`. Cheap: the specialised text is made only when
    /// `source` is read, which `RenderContext.program(named:vertex:fragment:)` does once per
    /// context, on a cache miss.
    public init(_ baseName: String, source: String, defines: [(String, Int)]) {
        name = "\(baseName)[\(defines.map { "\($0.0)=\($0.1)" }.joined(separator: ","))]"
        baseSource = source
        self.defines = defines
    }

    /// The source with the `#define`s inserted after its `#version` line. A `#line` directive
    /// keeps compile errors pointing at the file's own line numbers.
    public var source: String {
        var lines = baseSource.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let versionIndex = lines.firstIndex { $0.hasPrefix("#version") }
        let insertAt = versionIndex.map { $0 + 1 } ?? 0
        let block = defines.map { "#define \($0.0) \($0.1)" } + ["#line \(insertAt + 1)"]
        lines.insert(contentsOf: block, at: insertAt)
        return lines.joined(separator: "\n")
    }

    public static func == (lhs: ShaderVariant, rhs: ShaderVariant) -> Bool { lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}
