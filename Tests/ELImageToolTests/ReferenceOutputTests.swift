import ELImage
import ELImageTestSupport
import Foundation
import Testing

/// Reference outputs, as FFmpeg's FATE keeps them: every catalogue filter, at its defaults and at
/// one changed setting, into every kind of file output, at 8 and 10 bits, run through `elimage run`
/// on each renderer and compared with the records of a reviewed run (`Tests/References`, whose
/// README says how they are made and read). `make refs-update` writes them again.
@Suite("Reference outputs of every catalogue filter")
struct ReferenceOutputTests {
    let elimage = BuiltProgram(name: "elimage")

    @Test("The table covers the catalogue: every filter of FilterCatalog.standard, a changed setting for each that has parameters, no stale records")
    func tableCoversCatalogue() throws {
        let catalogue = FilterCatalog.standard.entries
        #expect(Set(catalogue.map(\.name)) == Set(ReferenceCases.changedSettings.keys),
                "the catalogue and ReferenceCases.changedSettings name different filters: add the new one to the table")
        for entry in catalogue {
            let changed = ReferenceCases.changedSettings[entry.name] ?? nil
            #expect(entry.parameters.isEmpty == (changed == nil), "\(entry.name): \(entry.parameters.count) parameters, changed setting \(changed ?? "none")")
            // The changed setting is one the catalogue takes, and not the defaults.
            let values = (changed ?? "").split(separator: ",").compactMap { pair -> (String, Double)? in
                let parts = pair.split(separator: "=")
                return parts.count == 2 ? (String(parts[0]), Double(parts[1]) ?? .nan) : nil
            }
            #expect(throws: Never.self) { try entry.make(Dictionary(uniqueKeysWithValues: values)) }
            #expect(values.contains { name, value in entry.parameters.first { $0.name == name }?.defaultValue != value } || changed == nil,
                    "\(entry.name): the changed setting \(changed ?? "") is its defaults")
        }
        let stored = try FileManager.default.contentsOfDirectory(atPath: ReferenceCases.folder)
            .filter { $0.hasSuffix(".tsv") }.map { String($0.dropLast(4)) }
        #expect(Set(stored) == Set(ReferenceCases.changedSettings.keys),
                "records in \(ReferenceCases.folder) for filters the catalogue does not have, or none for one it has: `make refs-update`")
    }

    @Test("Each filter's outputs match their records on every renderer", arguments: ReferenceCases.filters)
    func matchesRecords(filter: String) async throws {
        let cases = ReferenceCases.cases(of: filter)
        if ReferenceCases.updating {
            try await update(filter, cases: cases)
            return
        }
        let file = ReferenceCases.recordFile(of: filter)
        let records = try ReferenceRecord.read(file)
        #expect(Set(records.keys) == Set(cases.map(\.name)),
                "\(file) holds other cases than the catalogue makes (\(records.count) against \(cases.count)): `make refs-update`")
        var drawn: [String: String] = [:]  // "renderer case": the checksum of what it drew
        for referenceCase in cases {
            guard let record = records[referenceCase.name] else { continue }
            #expect(record.arguments == referenceCase.arguments,
                    "\(filter) \(referenceCase.name): recorded for '\(record.arguments)', the table now says '\(referenceCase.arguments)': `make refs-update`")
            for renderer in ReferenceCases.renderers {
                let (picture, tags) = try await run(referenceCase, on: renderer)
                drawn["\(renderer) \(referenceCase.name)"] = picture.checksum
                #expect(tags == record.tags, "\(filter) \(referenceCase.name) on \(renderer): the file describes its picture as \(tags), recorded \(record.tags)")
                if picture.checksum == record.checksum { continue }
                #expect(!(record.exact && renderer.madeTheRecords),
                        "\(filter) \(referenceCase.name) on \(renderer): the samples changed (checksum \(picture.checksum), recorded \(record.checksum)), where every renderer drew the same bytes: the arithmetic changed")
                let measured = try picture.halved().psnr(against: try await ReferenceCases.storedPicture(of: referenceCase))
                for (plane, (value, floor)) in zip(referenceCase.output.layout.planeNames, zip(measured, record.floors)) {
                    #expect(value >= floor, "\(filter) \(referenceCase.name) on \(renderer): \(plane) at \(String(format: "%.2f", value)) dB against the record, below its floor of \(floor) dB (\(ReferenceCases.imageFile(of: referenceCase)))")
                }
            }
        }
        // Outputs that must hold the same samples, whatever the renderer drew: a lossless MP4 and the
        // Y4M (the encoder's pack and the Y4M writer's), an 8-bit PNG and the raw RGBA (one readback).
        for renderer in ReferenceCases.renderers {
            for referenceCase in cases where referenceCase.output == .mp4 || (referenceCase.output == .png && referenceCase.depth == 8) {
                let twin = referenceCase.name.replacingOccurrences(of: referenceCase.output == .mp4 ? ".mp4" : ".png",
                                                                   with: referenceCase.output == .mp4 ? ".y4m" : ".rgba")
                #expect(drawn["\(renderer) \(referenceCase.name)"] == drawn["\(renderer) \(twin)"],
                        "\(filter) on \(renderer): \(referenceCase.name) and \(twin) hold different samples")
            }
        }
    }

    /// Runs `referenceCase` through `elimage run` on `renderer`, decodes its output and reads how the
    /// file describes it (ffprobe's pixel format, range, matrix, transfer, primaries and chroma
    /// location; "-" for raw frames).
    private func run(_ referenceCase: ReferenceCase, on renderer: ReferenceRenderer) async throws -> (picture: DecodedPicture, tags: String) {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("out.\(referenceCase.output.rawValue)")
        let result = try await elimage.run(referenceCase.commandLine(output: output) + ["--explain"], environment: renderer.environment)
        guard result.status == 0 else {
            throw PictureMismatch("elimage \(referenceCase.commandLine(output: output).joined(separator: " ")) on \(renderer): exit status \(result.status): \(result.errors)")
        }
        let said = (result.output + result.errors).split(separator: "\n").first { $0.hasPrefix("renderer: ") } ?? "no renderer line"
        guard renderer.accepts(said) else {
            throw PictureMismatch("asked for \(renderer) (GALLIUM_DRIVER), but elimage said '\(said)': set ELIMAGE_REFERENCE_RENDERERS=native to check another renderer")
        }
        let picture = try await DecodedPicture.decode(output, as: referenceCase.output.layout, bits: referenceCase.bits,
                                                      width: referenceCase.width, height: referenceCase.height,
                                                      rawRGBA: referenceCase.output == .rgba)
        guard referenceCase.output != .rgba else { return (picture, "-") }
        let probe = try await BuiltProgram(systemTool: "ffprobe").run(
            ["-v", "error", "-select_streams", "v:0", "-show_entries",
             "stream=pix_fmt,color_range,color_space,color_transfer,color_primaries,chroma_location", "-of", "csv=p=0", output])
        guard probe.status == 0 else { throw PictureMismatch("ffprobe could not read \(output): \(probe.errors)") }
        return (picture, probe.output.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// `make refs-update`: runs each case on every renderer and writes its record and half-size
    /// picture, made from the first renderer's output. A case is exact when every renderer drew the
    /// same samples; a plane's floor is 3 dB below the worst any other renderer measured, and at
    /// most 45 dB, so that a renderer that rounds otherwise still passes while a swapped matrix
    /// (about 34 dB), a one-sample shift or a 2-level bias does not.
    private func update(_ filter: String, cases: [ReferenceCase]) async throws {
        let renderers = ReferenceCases.renderers
        guard let first = renderers.first, renderers.allSatisfy(\.madeTheRecords) else {
            throw PictureMismatch("records are made on Mesa's rasterizers named in ELIMAGE_REFERENCE_RENDERERS, not on \(renderers)")
        }
        try FileManager.default.createDirectory(atPath: ReferenceCases.imageFolder(of: filter), withIntermediateDirectories: true)
        var lines = ["# Reference outputs of `elimage run --filter \(filter)`, made by `make refs-update` on "
                     + renderers.map(\.description).joined(separator: " and ") + "; Tests/References/README.md says how they are read.",
                     "# case\targuments\tchecksum\texact or approximate\tpix_fmt,range,matrix,transfer,primaries,chroma location\tfloor per plane (dB)"]
        for referenceCase in cases {
            let (made, tags) = try await run(referenceCase, on: first)
            let reference = made.halved()
            var exact = true
            var worst = Array(repeating: Double.infinity, count: reference.planes.count)
            for renderer in renderers.dropFirst() {
                let (other, otherTags) = try await run(referenceCase, on: renderer)
                guard otherTags == tags else {
                    throw PictureMismatch("\(filter) \(referenceCase.name): \(renderer)'s file says \(otherTags), \(first)'s \(tags)")
                }
                exact = exact && other.checksum == made.checksum
                worst = zip(worst, try other.halved().psnr(against: reference)).map { min($0, $1) }
            }
            let floors = worst.map { min(45, ($0 - 3).rounded(.down)) }
            try await reference.write(to: ReferenceCases.imageFile(of: referenceCase))
            let record = ReferenceRecord(name: referenceCase.name, arguments: referenceCase.arguments,
                                         checksum: made.checksum, exact: exact, tags: tags, floors: floors)
            lines.append(record.line(planeNames: referenceCase.output.layout.planeNames))
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: ReferenceCases.recordFile(of: filter), atomically: true, encoding: .utf8)
    }
}

/// A renderer the references are checked on: one of Mesa's, chosen with GALLIUM_DRIVER, or
/// whatever EGL gives (`native`: a GPU's driver).
struct ReferenceRenderer: Sendable, CustomStringConvertible {
    /// "llvmpipe", "softpipe" or "native".
    let name: String

    /// Mesa's rasterizers, the ones records are made on and held to their exact bytes.
    var madeTheRecords: Bool { name != "native" }
    var environment: [String: String] { madeTheRecords ? ["GALLIUM_DRIVER": name] : [:] }
    var description: String { name }

    /// Whether `elimage --explain`'s renderer line names this renderer.
    func accepts(_ said: Substring) -> Bool {
        madeTheRecords ? said.lowercased().contains(name) : said.hasPrefix("renderer: ")
    }
}

/// The file outputs a reference covers, by extension.
enum ReferenceOutput: String, Sendable, CaseIterable {
    case y4m, mp4, png, rgba

    var layout: DecodedPicture.Layout { self == .y4m || self == .mp4 ? .yuv420 : .rgba }
    /// Whether `--output-depth` sets its bits (raw RGBA is always 8).
    var takesDepth: Bool { self != .rgba }
}

/// One case: a filter setting, into one output, at one depth.
struct ReferenceCase: Sendable {
    let filter: String
    /// "default" or "changed".
    let setting: String
    /// The filter's arguments ("" for its defaults).
    let arguments: String
    let output: ReferenceOutput
    /// 8 or 10: the input's bits (`in8.y4m`, `in10.y4m`) and the output's, where it has a choice.
    let depth: Int

    var name: String { "\(setting).\(depth)bit.\(output.rawValue)" }

    /// Bits a sample of the decoded output: 16 for a 10-bit PNG, 8 for raw RGBA.
    var bits: Int {
        switch (output, depth) {
        case (.rgba, _), (_, 8): 8
        case (.png, _): 16
        default: depth
        }
    }

    /// The output's size: the input's 160x120, except where the filter's setting changes it.
    var width: Int { ReferenceCases.outputSizes["\(filter):\(arguments)"]?.width ?? 160 }
    var height: Int { ReferenceCases.outputSizes["\(filter):\(arguments)"]?.height ?? 120 }

    func commandLine(output path: String) -> [String] {
        // Tone mapping needs HDR: its input is the 10-bit PQ picture at both depths, and the depth
        // is the output's.
        let input = filter == "tonemap" ? "hdr-pq.mkv" : "in\(depth).y4m"
        var arguments = ["run", Repository.path("Tests/References/Inputs/\(input)"),
                         "--filter", self.arguments.isEmpty ? filter : "\(filter):\(self.arguments)", "-o", path]
        if output.takesDepth { arguments += ["--output-depth", "\(depth)"] }
        // Lossless x264: at its default rate a renderer's last-bit rounding changes the encoder's
        // choices, and the difference (31-38 dB between llvmpipe and softpipe) would hide a real bug.
        if output == .mp4 { arguments += ["--crf", "0"] }
        if filter == "backgroundreplace" { arguments += ["--background", Repository.path("Examples/Media/grace_hopper.jpg")] }
        return arguments
    }
}

/// The table of cases: for every catalogue filter, its defaults and one changed setting.
enum ReferenceCases {
    /// Each catalogue filter's changed setting (nil: it has no parameters). `tableCoversCatalogue`
    /// fails when a filter of `FilterCatalog.standard` is missing here.
    static let changedSettings: [String: String?] = [
        "grayscale": nil, "personmask": nil,
        "brightness": "brightness=0.2", "contrast": "contrast=1.5", "saturation": "saturation=0.3",
        "exposure": "ev=0.7", "gamma": "gamma=1.8", "hue": "degrees=90",
        "whitebalance": "temperature=0.4,tint=-0.3", "levels": "inputBlack=0.1,inputWhite=0.9,gamma=1.3",
        "blur": "sigma=5", "boxblur": "radius=4", "bilateral": "spatialSigma=4,rangeSigma=0.3",
        "tonemap": "peak=100", "sharpen": "amount=1.5", "sobel": "strength=2",
        "beauty": "strength=1,whitening=0", "reshape": "slimming=1,eyes=1",
        "backgroundblur": "strength=0.3", "backgroundreplace": "wrap=0.8",
        "crop": "x=16,y=8,width=96,height=64", "scale": "width=96,height=72",
    ]

    /// Settings whose output is not the input's size.
    static let outputSizes: [String: (width: Int, height: Int)] = [
        "crop:x=16,y=8,width=96,height=64": (96, 64), "scale:width=96,height=72": (96, 72),
    ]

    static let filters = changedSettings.keys.sorted()

    static func cases(of filter: String) -> [ReferenceCase] {
        let settings = [("default", "")] + ((changedSettings[filter] ?? nil).map { [("changed", $0)] } ?? [])
        return settings.flatMap { setting, arguments in
            [8, 10].flatMap { depth in
                ReferenceOutput.allCases.map { output in
                    ReferenceCase(filter: filter, setting: setting, arguments: arguments, output: output, depth: depth)
                }
            }
        }
    }

    static let folder = Repository.path("Tests/References")
    static func recordFile(of filter: String) -> String { "\(folder)/\(filter).tsv" }
    static func imageFolder(of filter: String) -> String { "\(folder)/\(filter)" }
    static func imageFile(of referenceCase: ReferenceCase) -> String {
        "\(imageFolder(of: referenceCase.filter))/\(referenceCase.name).\(referenceCase.output.layout == .yuv420 ? "y4m" : "png")"
    }

    /// The stored half-size picture of `referenceCase`, read only when an output is not the recorded one.
    static func storedPicture(of referenceCase: ReferenceCase) async throws -> DecodedPicture {
        try await DecodedPicture.decode(imageFile(of: referenceCase), as: referenceCase.output.layout, bits: referenceCase.bits,
                                        width: referenceCase.width / 2, height: referenceCase.height / 2)
    }

    /// `make refs-update` sets ELIMAGE_REFS_UPDATE=1: the cases write their records instead of checking them.
    static var updating: Bool { ProcessInfo.processInfo.environment["ELIMAGE_REFS_UPDATE"] == "1" }

    /// ELIMAGE_REFERENCE_RENDERERS, e.g. "llvmpipe softpipe" (the default; `make test` checks
    /// llvmpipe, `make test-long` softpipe) or "native" on a GPU.
    static var renderers: [ReferenceRenderer] {
        let names = ProcessInfo.processInfo.environment["ELIMAGE_REFERENCE_RENDERERS"] ?? "llvmpipe softpipe"
        return names.split(separator: " ").map { ReferenceRenderer(name: String($0)) }
    }
}
