/// A filter parameter that its shader reads as a uniform, declared once:
///
/// ```swift
/// public struct Parameters: Sendable {
///     /// -1...1; 0 leaves the picture unchanged. Clamped; NaN means the default.
///     @Uniform("amount", in: -1...1) public var amount: Float = 0
/// }
/// ```
///
/// The value lives in a lock-protected box that every copy of the wrapper shares, so the setter
/// is `nonmutating`: a filter holds its `Parameters` in a `let`, any thread sets a value, and the
/// render pass reads the current one for each frame. Every value set goes through the wrapper's
/// normalisation first (clamping to the range, with NaN becoming the declared default), so a bad
/// value never reaches a shader.
@propertyWrapper
public struct Uniform<Value: UniformRepresentable>: Sendable {
    /// The uniform's name in the shader (without a colour piece's `PIECE_` prefix).
    public let name: String
    /// The range its values are clamped to, when it was declared with one (`in:`).
    public let range: ClosedRange<Float>?
    private let box: Locked<Value>
    private let normalize: @Sendable (Value) -> Value

    /// A parameter set as given (no range).
    public init(wrappedValue: Value, _ name: String) {
        self.init(wrappedValue: wrappedValue, name, normalize: { $0 })
    }

    /// A parameter whose values go through `normalize` (e.g. wrapping an angle) before they are stored.
    public init(wrappedValue: Value, _ name: String, normalize: @escaping @Sendable (Value) -> Value) {
        self.init(wrappedValue: wrappedValue, name, range: nil, normalize: normalize)
    }

    private init(wrappedValue: Value, _ name: String, range: ClosedRange<Float>?,
                 normalize: @escaping @Sendable (Value) -> Value) {
        self.name = name
        self.range = range
        self.normalize = normalize
        box = Locked(normalize(wrappedValue))
    }

    /// The current value; setting it stores the normalised value for the following frames.
    public var wrappedValue: Value {
        get { box.withLock { $0 } }
        nonmutating set {
            let value = normalize(newValue)
            box.withLock { $0 = value }
        }
    }

    /// The current value as a shader uniform.
    public var uniformValue: UniformValue { wrappedValue.uniformValue }
}

extension Uniform where Value == Float {
    /// A parameter kept inside `range`: larger or smaller values are clamped, and NaN becomes the
    /// declared default (`wrappedValue`).
    public init(wrappedValue: Float, _ name: String, in range: ClosedRange<Float>) {
        let neutral = min(max(wrappedValue, range.lowerBound), range.upperBound)
        self.init(wrappedValue: wrappedValue, name, range: range) {
            FilterParameter.clamp($0, to: range, neutral: neutral)
        }
    }
}

/// A Swift value that a shader reads as one uniform.
public protocol UniformRepresentable: Sendable {
    /// The value as a uniform.
    var uniformValue: UniformValue { get }
}

extension Float: UniformRepresentable {
    public var uniformValue: UniformValue { .float(self) }
}

extension Int32: UniformRepresentable {
    public var uniformValue: UniformValue { .int(self) }
}

extension SIMD2: UniformRepresentable where Scalar == Float {
    public var uniformValue: UniformValue { .vec2(self) }
}

extension SIMD3: UniformRepresentable where Scalar == Float {
    public var uniformValue: UniformValue { .vec3(self) }
}

extension SIMD4: UniformRepresentable where Scalar == Float {
    public var uniformValue: UniformValue { .vec4(self) }
}

/// What the render pass reads from any `@Uniform` property, whatever its value type.
protocol UniformReading {
    var name: String { get }
    var range: ClosedRange<Float>? { get }
    var uniformValue: UniformValue { get }
}

extension Uniform: UniformReading {}
