/// The GLSL ES sources of ELImage's built-in shaders (the files of `Shaders/`, embedded at build
/// time), for custom filters that reuse a piece and for tools that compare against them.
public enum ShaderLibrary {
    /// The source of `name` (a file name such as "fullscreen.vsh"), or nil if there is none.
    public static func source(named name: String) -> String? { EmbeddedShaders.all[name] }

    /// Every built-in shader's file name.
    public static var names: [String] { EmbeddedShaders.all.keys.sorted() }
}
