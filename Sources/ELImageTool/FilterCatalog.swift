import ELImage
import ELImageCommandLine

/// `elimage run --filter` and `elimage filters` over the library's `FilterCatalog`: a parsed
/// `FilterSpec` made into a filter with usage errors, and the listing.
extension FilterCatalog {
    /// Makes the filter `spec` names; the catalogue checks every parameter's name and range.
    func make(_ spec: FilterSpec) throws(UsageError) -> Filter {
        let entry = try requireEntry(named: spec.name)
        var values: [String: Double] = [:]
        for (given, value) in spec.parameters {
            let key = try Self.key(given, of: entry, spec: spec)
            let names = entry.parameters.map(\.name)
            if !names.contains(key), let meant = NameSuggestion.closest(to: key, among: names) {
                throw UsageError("filter '\(spec.name)' has no parameter '\(key)'; did you mean '\(meant)'? (it has: \(names.joined(separator: ", ")))")
            }
            values[key] = value
        }
        do {
            return try entry.make(values)
        } catch let ELImageError.invalidInput(what, hint) where what.hasPrefix("filter '\(spec.name)'") {
            throw UsageError("\(what) (\(hint))")  // a parameter the catalogue refused
        } catch {
            throw UsageError("filter '\(spec.name)': \(error)")
        }
    }

    /// The entry named `name`; an unknown name is refused with the closest known one and the list.
    func requireEntry(named name: String) throws(UsageError) -> Entry {
        guard let entry = entry(named: name) else {
            let names = entries.map(\.name)
            throw UsageError("unknown filter '\(name)'\(NameSuggestion.sentence(for: name, among: names)) "
                             + "(`elimage filters` lists them: \(names.joined(separator: ", ")))")
        }
        return entry
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
