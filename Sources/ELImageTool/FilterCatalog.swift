import ELImage

/// The filters `elimage` knows by name, with their parameters and ranges.
struct FilterCatalog: Sendable {
    /// One parameter of a filter.
    struct Parameter: Sendable {
        let name: String
        let range: ClosedRange<Double>
        let defaultValue: Double
        let summary: String
    }

    /// A filter: how to make it from parsed parameters.
    struct Entry: Sendable {
        let name: String
        let summary: String
        let parameters: [Parameter]
        let make: @Sendable ([String: Double]) throws -> ShaderFilter
    }

    let entries: [Entry]

    static let standard = FilterCatalog(entries: [
        Entry(name: "grayscale", summary: "BT.709 luma gray", parameters: [], make: { _ in Grayscale() }),
        Entry(name: "scale", summary: "bilinear resize (0 keeps the input's size)",
              parameters: [Parameter(name: "width", range: 0...16384, defaultValue: 0, summary: "output width in pixels"),
                           Parameter(name: "height", range: 0...16384, defaultValue: 0, summary: "output height in pixels")],
              make: { values in
                  let width = Int(values["width"] ?? 0), height = Int(values["height"] ?? 0)
                  return Passthrough(outputSize: width > 0 && height > 0 ? (width, height) : nil)
              }),
    ])

    /// Makes the filter `spec` names, checking every parameter name and range.
    func make(_ spec: FilterSpec) throws(UsageError) -> ShaderFilter {
        guard let entry = entries.first(where: { $0.name == spec.name }) else {
            throw UsageError("unknown filter '\(spec.name)'; `elimage filters` lists them: \(entries.map(\.name).joined(separator: ", "))")
        }
        var values: [String: Double] = [:]
        for (key, value) in spec.parameters {
            guard let parameter = entry.parameters.first(where: { $0.name == key }) else {
                let known = entry.parameters.isEmpty ? "it takes none" : "it has: " + entry.parameters.map(\.name).joined(separator: ", ")
                throw UsageError("filter '\(spec.name)' has no parameter '\(key)' (\(known))")
            }
            guard parameter.range.contains(value) else {
                throw UsageError("filter '\(spec.name)': \(key)=\(value) is outside \(parameter.range.lowerBound)...\(parameter.range.upperBound)")
            }
            values[key] = value
        }
        do {
            return try entry.make(values)
        } catch {
            throw UsageError("filter '\(spec.name)': \(error)")
        }
    }

    /// The table `elimage filters` prints.
    var listing: String {
        entries.map { entry in
            let parameters = entry.parameters.map { parameter in
                "    \(parameter.name)=\(parameter.range.lowerBound)...\(parameter.range.upperBound) (default \(parameter.defaultValue)): \(parameter.summary)"
            }
            return (["\(entry.name) — \(entry.summary)"] + parameters).joined(separator: "\n")
        }.joined(separator: "\n")
    }
}
