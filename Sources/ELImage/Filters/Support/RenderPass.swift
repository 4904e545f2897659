extension RenderContext {
    /// Renders one full-frame pass of `fragment` into a new pooled frame of `width` x `height` and
    /// returns it: the building block of the multi-pass filters.
    ///
    /// - Parameters:
    ///   - name: the program's cache name (unique per fragment source).
    ///   - fragment: the program's source, read only when `name` is not compiled yet.
    ///   - inputs: sampled as `inputImageTexture`, `inputImageTexture2`, ...
    ///   - like: the frame whose timestamp, colour space and texture format (8-bit or half float)
    ///     the output carries.
    ///   - format: the output's texture format, when it is not `reference`'s.
    ///   - uniforms: values set on the program before drawing; names the program lacks are ignored.
    package func renderPass(
        _ name: String, fragment: @autoclosure () -> String, inputs: [TextureFrame], width: Int, height: Int,
        like reference: TextureFrame, format: TextureFormat? = nil, uniforms: [String: UniformValue] = [:]
    ) throws -> TextureFrame {
        let output = try makeFrame(width: width, height: height, format: format, like: reference)
        let program = try program(named: name, fragment: fragment())
        try draw(program, into: output, inputs: inputs) { program in
            for (uniform, value) in uniforms { program.set(value, for: uniform) }
        }
        return output
    }
}
