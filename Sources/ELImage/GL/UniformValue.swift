import CGLES

/// A value for a shader uniform.
public enum UniformValue: Sendable, Equatable {
    case float(Float)
    case int(Int32)
    case ivec2(SIMD2<Int32>)
    case vec2(SIMD2<Float>)
    case vec3(SIMD3<Float>)
    case vec4(SIMD4<Float>)
    /// Column-major 3x3 matrix (9 values).
    case mat3([Float])
    /// Column-major 4x4 matrix (16 values).
    case mat4([Float])
    /// An array of vec4 (`uniform vec4 name[N]`), from its first element on.
    case vec4Array([SIMD4<Float>])

    func apply(at location: GLint) {
        switch self {
        case .float(let value): glUniform1f(location, value)
        case .int(let value): glUniform1i(location, value)
        case .ivec2(let value): glUniform2i(location, value.x, value.y)
        case .vec2(let value): glUniform2f(location, value.x, value.y)
        case .vec3(let value): glUniform3f(location, value.x, value.y, value.z)
        case .vec4(let value): glUniform4f(location, value.x, value.y, value.z, value.w)
        case .mat3(let values) where values.count == 9: glUniformMatrix3fv(location, 1, GLboolean(GL_FALSE), values)
        case .mat4(let values) where values.count == 16: glUniformMatrix4fv(location, 1, GLboolean(GL_FALSE), values)
        case .mat3, .mat4: break
        case .vec4Array(let values) where !values.isEmpty:
            let flat = values.flatMap { [$0.x, $0.y, $0.z, $0.w] }
            glUniform4fv(location, GLsizei(values.count), flat)
        case .vec4Array: break
        }
    }
}
