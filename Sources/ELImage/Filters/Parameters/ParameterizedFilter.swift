/// A filter whose settings are the `@Uniform` properties of its `Parameters` struct, reachable as
/// properties of the filter itself: `brightness.brightness = 0.2` sets
/// `brightness.parameters.brightness`.
///
/// The parameters are declared once: the property, its uniform name, its range and its default.
/// `Parameters` is a `Sendable` struct held in a `let`, and each property's storage is a
/// lock-protected box (see `Uniform`), so the compiler checks the filter's `Sendable` conformance.
@dynamicMemberLookup
public protocol ParameterizedFilter: AnyObject, Sendable {
    /// A struct of `@Uniform` properties (other stored properties are ignored by the render pass).
    associatedtype Parameters: Sendable
    /// The filter's settings.
    var parameters: Parameters { get }
}

extension ParameterizedFilter {
    /// A parameter, read or set as a property of the filter.
    public subscript<Value>(dynamicMember keyPath: ReferenceWritableKeyPath<Parameters, Value>) -> Value {
        get { parameters[keyPath: keyPath] }
        set { parameters[keyPath: keyPath] = newValue }
    }

    /// The declared range of every `@Uniform` parameter that has one, by uniform name: what the
    /// filter catalogue's ranges are checked against.
    package var declaredParameterRanges: [String: ClosedRange<Float>] {
        var ranges: [String: ClosedRange<Float>] = [:]
        for child in Mirror(reflecting: parameters).children {
            if let uniform = child.value as? any UniformReading, let range = uniform.range { ranges[uniform.name] = range }
        }
        return ranges
    }

    /// The current value of every `@Uniform` parameter, by uniform name.
    public var parameterUniforms: [String: UniformValue] {
        var values: [String: UniformValue] = [:]
        for child in Mirror(reflecting: parameters).children {
            if let uniform = child.value as? any UniformReading { values[uniform.name] = uniform.uniformValue }
        }
        return values
    }
}

extension SinglePassFilter where Self: ParameterizedFilter {
    /// The `@Uniform` parameters' current values.
    public func uniforms(forInput input: TextureFrame, outputSize: (width: Int, height: Int)) -> [String: UniformValue] {
        parameterUniforms
    }
}
