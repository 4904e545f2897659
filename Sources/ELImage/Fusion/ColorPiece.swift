/// A piece of GLSL that transforms one colour: the unit of pass fusion.
///
/// The source defines `vec4 PIECE_apply(vec4 color)` and any uniforms and helpers it needs, every
/// global name starting with `PIECE_`. When a shader is generated, `PIECE_` becomes a prefix unique
/// to the piece's position (`brightness_0_`, `contrast_1_`, ...), so one shader can hold several
/// pieces, including the same piece twice. The built-in pieces are `Shaders/color_*.glsl`.
///
/// ```glsl
/// uniform float PIECE_amount;
/// vec4 PIECE_apply(vec4 color) { return vec4(color.rgb + PIECE_amount, color.a); }
/// ```
public struct ColorPiece: Sendable, Hashable {
    /// The token in `source` that is replaced by the per-instance prefix.
    public static let token = "PIECE_"

    /// Lower-case letters, digits and single underscores, e.g. "white_balance"; names the generated
    /// functions and the cached programs.
    public let name: String
    /// GLSL ES 3.00 source of the piece (no `#version`, no `main`).
    public let source: String
    /// A hash of the name and source (FNV-1a, stable across runs): names generated programs.
    let fingerprint: UInt64

    /// - Throws: `ELImageError.invalidInput` when `name` is not a valid identifier fragment or the
    ///   source does not define `PIECE_apply`.
    public init(name: String, source: String) throws {
        let valid = !name.isEmpty && name.first?.isLetter == true && !name.hasSuffix("_") && !name.contains("__")
            && name.allSatisfy { ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "_" }
        guard valid else {
            throw ELImageError.invalidInput(what: "colour piece name '\(name)' is not usable in GLSL names",
                                            hint: "use lower-case letters, digits and single underscores, starting with a letter")
        }
        guard source.contains("\(Self.token)apply") else {
            throw ELImageError.invalidInput(what: "colour piece '\(name)' does not define \(Self.token)apply",
                                            hint: "define `vec4 \(Self.token)apply(vec4 color)`")
        }
        self.init(builtIn: name, source: source)
    }

    /// A built-in piece, known to be well formed.
    init(builtIn name: String, source: String) {
        self.name = name
        self.source = source
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in (name + "\u{0}" + source + "\u{0}").utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        fingerprint = hash
    }

    /// The prefix of the piece at `index` in a generated shader.
    public func prefix(at index: Int) -> String { "\(name)_\(index)_" }

    /// The source with `PIECE_` replaced by the prefix of `index`.
    func instantiated(at index: Int) -> String {
        source.replacingOccurrences(of: Self.token, with: prefix(at: index))
    }
}
