import ELImage
import Testing

/// The filter catalogue (what `elimage filters`, `--filter` and the filter reference page say)
/// against the filters' own declarations: a range changed in a filter's `@Uniform` and not in
/// the catalogue, or the other way round, fails here.
@Suite("Filter catalogue: its ranges are those the filters declare")
struct CatalogueDeclarationTests {
    @Test("Every catalogue parameter of a filter with @Uniform parameters has the range the filter declares")
    func rangesMatchDeclarations() throws {
        var checked: [String] = []
        for entry in FilterCatalog.standard.entries {
            guard let filter = try entry.make() as? any ParameterizedFilter else { continue }
            let declared = filter.declaredParameterRanges
            for (uniform, range) in declared {
                // The catalogue names a parameter as its uniform, or, for a filter of one
                // parameter, by the filter's own name (`brightness=0.2`).
                let parameter = entry.parameters.first { $0.name == uniform }
                    ?? (entry.parameters.count == 1 && declared.count == 1 ? entry.parameters.first : nil)
                let found = try #require(parameter, "\(entry.name): the filter declares '\(uniform)' but the catalogue has no such parameter")
                let catalogued = Float(found.range.lowerBound)...Float(found.range.upperBound)
                #expect(catalogued == range, "\(entry.name).\(found.name): the catalogue says \(found.range), the filter declares \(range)")
                checked.append("\(entry.name).\(found.name)")
            }
        }
        // brightness, contrast, saturation, exposure, gamma, white balance, levels, bilateral, sharpen, Sobel.
        #expect(checked.count >= 16, "only \(checked) were compared")
    }

    @Test("A @Uniform declared with a range reports it; one without does not")
    func declaredRanges() {
        let saturation = Saturation(1)
        #expect(saturation.declaredParameterRanges == ["saturation": 0...4])
        #expect(Hue(degrees: 10).declaredParameterRanges.isEmpty)
    }
}
