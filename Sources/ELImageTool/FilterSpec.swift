/// A `--filter` argument: `NAME` or `NAME:key=value,key=value`.
struct FilterSpec: Equatable, CustomStringConvertible {
    let name: String
    let parameters: [(key: String, value: Double)]

    static func == (lhs: FilterSpec, rhs: FilterSpec) -> Bool {
        lhs.name == rhs.name && lhs.parameters.map(\.key) == rhs.parameters.map(\.key)
            && lhs.parameters.map(\.value) == rhs.parameters.map(\.value)
    }

    /// Parses `text`; the error names the part that is wrong.
    init(parsing text: String) throws(UsageError) {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
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

    var description: String {
        parameters.isEmpty ? name : name + ":" + parameters.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
    }
}

/// A mistake in how the tool was called: exit code 2.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
