import ELImage

/// The filter reference of the documentation (`Sources/ELImage/ELImage.docc/FilterReference.md`),
/// made from the filter catalogue by `elimage filters --markdown` (`make filters-doc`), so the
/// page says what the code declares: every filter's name and summary, every parameter's range,
/// default and meaning. A test compares the committed page with this text.
extension FilterCatalog {
    /// The page, as DocC Markdown.
    var markdownReference: String {
        var lines = [
            "# Filter reference",
            "",
            "Every filter that `elimage run --filter` takes and ``FilterCatalog/standard`` makes by name,",
            "with the range, default and meaning of each parameter.",
            "",
            "<!-- Made by `make filters-doc` (`elimage filters --markdown`) from the filter catalogue; a test fails",
            "     when this page and the catalogue differ. Edit the catalogue, not this page. -->",
            "",
            "## Overview",
            "",
            "A filter with one parameter takes it directly (`--filter saturation=0.5`); any filter takes its",
            "parameters by name (`--filter beauty:strength=0.5,whitening=0`). A value outside its range is",
            "refused with the range in the message; a parameter not given takes its default. In Swift,",
            "`try FilterCatalog.standard.make(\"blur\", [\"sigma\": 3])` makes the same node as",
            "`--filter blur=3`. `elimage filters` prints this list in the terminal.",
            "",
            "| filter | what it does | parameters |",
            "|---|---|---|",
        ]
        for entry in entries {
            let names = entry.parameters.map { "`\($0.name)`" }.joined(separator: ", ")
            lines.append("| [`\(entry.name)`](#\(entry.name)) | \(entry.summary) | \(names.isEmpty ? "none" : names) |")
        }
        for entry in entries {
            lines += ["", "### \(entry.name)", "", Self.sentence(entry.summary), ""]
            if entry.parameters.isEmpty {
                lines += ["It takes no parameters: `--filter \(entry.name)`."]
                continue
            }
            lines += ["| parameter | range | default | meaning |", "|---|---|---|---|"]
            for parameter in entry.parameters {
                lines.append("| `\(parameter.name)` | \(Self.number(parameter.range.lowerBound)) … \(Self.number(parameter.range.upperBound)) "
                             + "| \(Self.number(parameter.defaultValue)) | \(parameter.summary) |")
            }
            let example = entry.parameters.map { "\($0.name)=\(Self.number($0.defaultValue))" }.joined(separator: ",")
            lines += ["", "With every default written out: `--filter \(entry.name):\(example)`."]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A parameter's number as the command line takes it: `2`, `0.35`, `16384`.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// `summary` as a sentence: capitalised, with a full stop.
    private static func sentence(_ summary: String) -> String {
        guard let first = summary.first else { return "" }
        return first.uppercased() + summary.dropFirst() + (summary.hasSuffix(".") ? "" : ".")
    }
}
