import ELImage
import ELImageCommandLine

/// `elimage run --filter` and `elimage filters` over the library's `FilterCatalog`: a parsed
/// `FilterSpec` made into a filter with usage errors, and the listing.
extension FilterCatalog {
    /// Makes the filter `spec` names; the catalogue checks every parameter's name and range.
    func make(_ spec: FilterSpec) throws(UsageError) -> Filter {
        guard let entry = entry(named: spec.name) else {
            throw UsageError("unknown filter '\(spec.name)'; `elimage filters` lists them: \(entries.map(\.name).joined(separator: ", "))")
        }
        var values: [String: Double] = [:]
        for (given, value) in spec.parameters { values[try Self.key(given, of: entry, spec: spec)] = value }
        do {
            return try entry.make(values)
        } catch let ELImageError.invalidInput(what, hint) where what.hasPrefix("filter '\(spec.name)'") {
            throw UsageError("\(what) (\(hint))")  // a parameter the catalogue refused
        } catch {
            throw UsageError("filter '\(spec.name)': \(error)")
        }
    }

    /// The parameter a key names: itself, or for `NAME=value` the filter's only parameter.
    private static func key(_ key: String, of entry: Entry, spec: FilterSpec) throws(UsageError) -> String {
        guard key == FilterSpec.onlyParameter else { return key }
        guard entry.parameters.count == 1, let only = entry.parameters.first else {
            let names = entry.parameters.map(\.name)
            let known = names.isEmpty ? "it takes none" : "it has \(names.count): " + names.joined(separator: ", ")
            throw UsageError("--filter \(spec): '\(spec.name)=VALUE' is for a filter with one parameter (\(known)); "
                             + "write \(spec.name)\(names.first.map { ":\($0)=VALUE" } ?? "")")
        }
        return only.name
    }

    /// The table `elimage filters` prints.
    var listing: String {
        entries.map { entry in
            let parameters = entry.parameters.map { parameter in
                "    \(parameter.name)=\(Self.number(parameter.range.lowerBound))...\(Self.number(parameter.range.upperBound)) "
                    + "(default \(Self.number(parameter.defaultValue)))"
                    + (parameter.summary.isEmpty ? "" : ": \(parameter.summary)")
            }
            return (["\(entry.name) — \(entry.summary)"] + parameters).joined(separator: "\n")
        }.joined(separator: "\n")
    }
}
