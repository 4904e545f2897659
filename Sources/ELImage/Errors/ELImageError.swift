import Foundation

/// Every error ELImage throws or reports. Each case carries what failed, where, and what to do.
public enum ELImageError: Error, Sendable, Equatable {
    /// No EGL display could be opened on any platform that was tried.
    case noDisplay(tried: [String], hint: String)
    /// An EGL call failed.
    case egl(call: String, code: Int32, hint: String)
    /// A GL call reported an error.
    case gl(call: String, code: UInt32)
    /// A shader stage did not compile. `line` is the 1-based line in `shader`'s source, when the
    /// driver's log names one.
    case shaderCompile(shader: String, line: Int?, sourceLine: String?, log: String)
    /// A program did not link.
    case shaderLink(program: String, log: String)
    /// A uniform or attribute the code expects is not in the program.
    case missingShaderSymbol(program: String, symbol: String)
    /// A framebuffer could not be completed for rendering.
    case incompleteFramebuffer(status: UInt32, width: Int, height: Int)
    /// Input that the caller handed in is unusable (wrong size, stride, buffer length, ...).
    case invalidInput(what: String, hint: String)
    /// A file or stream is malformed. `frame` is the 0-based frame number where it failed, if any.
    case malformedMedia(file: String, frame: Int?, reason: String)
    /// A file could not be read or written.
    case io(file: String, operation: String, errno: Int32, hint: String)
    /// A node was asked for something it cannot do in its current state.
    case invalidState(node: String, reason: String)
    /// `what` (a render context, a node) was used after its `close()`.
    case closed(what: String)
    /// A network peer (a streaming server, a listener) could not be reached or went away.
    /// `address` is shown without secrets (an RTMP stream key, an SRT passphrase).
    case network(address: String, operation: String, reason: String, hint: String)
}

extension ELImageError: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .noDisplay(tried, hint):
            return "no EGL display could be opened (tried: \(tried.joined(separator: "; "))). \(hint)"
        case let .egl(call, code, hint):
            let name = EGLErrorName.name(of: code)
            return "\(call) failed with \(name) (0x\(String(code, radix: 16)))" + (hint.isEmpty ? "" : ". \(hint)")
        case let .gl(call, code):
            return "\(call) failed with GL error 0x\(String(code, radix: 16))"
        case let .shaderCompile(shader, line, sourceLine, log):
            var text = "shader '\(shader)' does not compile"
            if let line { text += " at line \(line)" }
            if let sourceLine { text += ": `\(sourceLine.trimmingCharacters(in: .whitespaces))`" }
            return text + "\n" + log
        case let .shaderLink(program, log):
            return "shader program '\(program)' does not link\n" + log
        case let .missingShaderSymbol(program, symbol):
            return "shader program '\(program)' has no active '\(symbol)'; check the name and that the shader uses it"
        case let .incompleteFramebuffer(status, width, height):
            return "framebuffer \(width)x\(height) is incomplete (status 0x\(String(status, radix: 16)))"
        case let .invalidInput(what, hint):
            return "\(what). \(hint)"
        case let .malformedMedia(file, frame, reason):
            return "\(file)" + (frame.map { ", frame \($0)" } ?? "") + ": \(reason)"
        case let .io(file, operation, errno, hint):
            return "cannot \(operation) \(file): \(String(cString: strerror(errno)))" + (hint.isEmpty ? "" : ". \(hint)")
        case let .invalidState(node, reason):
            return "\(node): \(reason)"
        case let .closed(what):
            return "\(what) was used after close(); everything it ran has ended. Create a new one for more work"
        case let .network(address, operation, reason, hint):
            return "cannot \(operation) \(address): \(reason)" + (hint.isEmpty ? "" : ". \(hint)")
        }
    }
}

extension ELImageError: LocalizedError {
    public var errorDescription: String? { description }
}
