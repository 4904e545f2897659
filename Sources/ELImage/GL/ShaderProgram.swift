import CGLES
import Foundation

/// A linked GLSL ES program with cached uniform locations.
///
/// Get one from `RenderContext.program(named:vertex:fragment:)`, which compiles it once per context.
/// A shader that does not compile throws `ELImageError.shaderCompile` with the failing line.
public final class ShaderProgram {
    /// The name used in error messages and as the cache key, e.g. "grayscale".
    public let name: String
    let id: GLuint
    private var uniformLocations: [String: GLint] = [:]

    init(name: String, vertexSource: String, fragmentSource: String) throws {
        self.name = name
        let vertex = try Self.compile(vertexSource, stage: GLenum(GL_VERTEX_SHADER), name: "\(name) (vertex)")
        defer { glDeleteShader(vertex) }
        let fragment = try Self.compile(fragmentSource, stage: GLenum(GL_FRAGMENT_SHADER), name: "\(name) (fragment)")
        defer { glDeleteShader(fragment) }
        let program = glCreateProgram()
        glAttachShader(program, vertex)
        glAttachShader(program, fragment)
        glLinkProgram(program)
        var linked: GLint = 0
        glGetProgramiv(program, GLenum(GL_LINK_STATUS), &linked)
        guard linked == GL_TRUE else {
            let log = Self.infoLog(program, length: glGetProgramiv, read: glGetProgramInfoLog)
            glDeleteProgram(program)
            throw ELImageError.shaderLink(program: name, log: log)
        }
        id = program
    }

    /// Makes this the current program.
    public func use() { glUseProgram(id) }

    /// The location of uniform `name`, or nil when the program has no such active uniform.
    public func uniformLocation(_ uniform: String) -> GLint? {
        if let location = uniformLocations[uniform] { return location >= 0 ? location : nil }
        let location = glGetUniformLocation(id, uniform)
        uniformLocations[uniform] = location
        return location >= 0 ? location : nil
    }

    /// Sets a uniform the program must have; throws when it has none (a misspelt name).
    public func requireUniform(_ uniform: String) throws -> GLint {
        guard let location = uniformLocation(uniform) else {
            throw ELImageError.missingShaderSymbol(program: name, symbol: uniform)
        }
        return location
    }

    /// Points sampler `uniform` at texture unit `unit`, if the program uses it.
    public func setSampler(_ uniform: String, unit: Int) {
        if let location = uniformLocation(uniform) { glUniform1i(location, GLint(unit)) }
    }

    /// Sets `value` on uniform `uniform` if the program uses it.
    public func set(_ value: UniformValue, for uniform: String) {
        guard let location = uniformLocation(uniform) else { return }
        value.apply(at: location)
    }

    /// "inputImageTexture", "inputImageTexture2", ... for input 0, 1, ...
    public static func samplerName(forInput index: Int) -> String {
        index == 0 ? "inputImageTexture" : "inputImageTexture\(index + 1)"
    }

    func delete() { glDeleteProgram(id) }

    // MARK: Compiling

    private static func compile(_ source: String, stage: GLenum, name: String) throws -> GLuint {
        let shader = glCreateShader(stage)
        source.withCString { text in
            var pointer: UnsafePointer<GLchar>? = text
            glShaderSource(shader, 1, &pointer, nil)
        }
        glCompileShader(shader)
        var compiled: GLint = 0
        glGetShaderiv(shader, GLenum(GL_COMPILE_STATUS), &compiled)
        guard compiled == GL_TRUE else {
            let log = infoLog(shader, length: glGetShaderiv, read: glGetShaderInfoLog)
            glDeleteShader(shader)
            let line = ShaderLogLine.firstLine(in: log)
            let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
            let text = line.flatMap { $0 >= 1 && $0 <= lines.count ? String(lines[$0 - 1]) : nil }
            throw ELImageError.shaderCompile(shader: name, line: line, sourceLine: text, log: log)
        }
        return shader
    }

    private static func infoLog(
        _ object: GLuint,
        length: (GLuint, GLenum, UnsafeMutablePointer<GLint>?) -> Void,
        read: (GLuint, GLsizei, UnsafeMutablePointer<GLsizei>?, UnsafeMutablePointer<GLchar>?) -> Void
    ) -> String {
        var size: GLint = 0
        length(object, GLenum(GL_INFO_LOG_LENGTH), &size)
        guard size > 1 else { return "(the driver gave no log)" }
        var buffer = [GLchar](repeating: 0, count: Int(size))
        read(object, size, nil, &buffer)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Finds the source line a driver's compile log points at. Drivers write it differently:
/// Mesa `0:12(5): error: ...`, NVIDIA `0(12) : error C0000: ...`, ANGLE/glslang `ERROR: 0:12: ...`.
enum ShaderLogLine {
    static func firstLine(in log: String) -> Int? {
        for entry in log.split(separator: "\n") {
            if let match = entry.firstMatch(of: /^\s*\d+:(\d+)\(\d+\)/) { return Int(match.1) }
            if let match = entry.firstMatch(of: /^\s*\d+\((\d+)\)\s*:/) { return Int(match.1) }
            if let match = entry.firstMatch(of: /^\s*(?:ERROR|WARNING):\s*\d+:(\d+):/) { return Int(match.1) }
        }
        return nil
    }
}

