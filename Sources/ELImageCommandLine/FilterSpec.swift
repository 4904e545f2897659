import Foundation

/// A `--filter` argument: `NAME`, `NAME:key=value,key=value`, or `NAME=value` for a filter with
/// one parameter (`saturation=0.5`, `blur=3`).
public struct FilterSpec: Equatable, CustomStringConvertible {
    /// The filter's name, lowercased.
    public let name: String
    /// The parameters given; the key of `NAME=value` is `FilterSpec.onlyParameter`.
    public let parameters: [(key: String, value: Double)]

    /// The key of the one value of `NAME=value`: the filter's only parameter.
    public static let onlyParameter = ""

    public static func == (lhs: FilterSpec, rhs: FilterSpec) -> Bool {
        lhs.name == rhs.name && lhs.parameters.map(\.key) == rhs.parameters.map(\.key)
            && lhs.parameters.map(\.value) == rhs.parameters.map(\.value)
    }

    /// The filter name `text` begins with (lowercased), before its parameters are parsed: a
    /// name can be checked first, so that `drawtext:text=hi` is an unknown filter, not a bad number.
    public static func name(in text: String) -> String {
        text.prefix { $0 != ":" && $0 != "=" }.trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// Parses `text`; the error names the part that is wrong.
    public init(parsing text: String) throws(UsageError) {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        if parts.count == 1, let equals = text.firstIndex(of: "=") {
            // NAME=value: the value of the filter's only parameter.
            let name = text[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            guard !name.isEmpty else { throw UsageError("--filter '\(text)' has no filter name before '='") }
            let valueText = text[text.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard let value = Double(valueText), value.isFinite else {
                throw UsageError("--filter '\(text)': the value '\(valueText)' is not a number")
            }
            self.name = name
            parameters = [(Self.onlyParameter, value)]
            return
        }
        let name = parts[0].trimmingCharacters(in: .whitespaces).lowercased()
        guard !name.isEmpty else { throw UsageError("--filter '\(text)' has no filter name before ':'") }
        self.name = name
        guard parts.count == 2 else {
            parameters = []
            return
        }
        var parameters: [(key: String, value: Double)] = []
        for assignment in parts[1].split(separator: ",", omittingEmptySubsequences: false) {
            let pair = assignment.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = pair[0].trimmingCharacters(in: .whitespaces)
            guard !key.isEmpty else {
                throw UsageError("--filter '\(text)': an empty parameter name in '\(assignment)'; write key=value")
            }
            guard pair.count == 2 else {
                throw UsageError("--filter '\(text)': parameter '\(key)' has no value; write \(key)=VALUE")
            }
            let valueText = pair[1].trimmingCharacters(in: .whitespaces)
            guard let value = Double(valueText), value.isFinite else {
                throw UsageError("--filter '\(text)': parameter '\(key)' has value '\(valueText)', which is not a number")
            }
            parameters.append((key, value))
        }
        self.parameters = parameters
    }

    public var description: String {
        if parameters.count == 1, let only = parameters.first, only.key == Self.onlyParameter { return "\(name)=\(only.value)" }
        return parameters.isEmpty ? name : name + ":" + parameters.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
    }
}
