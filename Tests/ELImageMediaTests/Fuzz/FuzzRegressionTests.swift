import ELImage
@testable import ELImageFuzzing
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

// The fuzzers' seed corpus (Tests/Fuzz/Corpus) and the inputs that once crashed, hung or leaked in
// a parser (Tests/Fuzz/Regressions), replayed through the same entry points as `make fuzz`: each
// must parse or be rejected with an ELImageError, never crash or break the parser's contract.

@Suite("Fuzz corpus and regressions", .closesContexts)
struct FuzzRegressionTests {
    /// What each regression input must now be rejected with: a fragment of the reason. Every file
    /// under Tests/Fuzz/Regressions must be listed, so that each says what it once broke.
    static let expectedRejections: [String: String] = [
        // Crashed: its header asks for 65500x65500 RGBA, a 17 GB allocation (libFuzzer: out-of-memory).
        "jpeg/oversized-65500x65500.jpg": "65500x65500 picture; pictures larger than 16384 pixels a side are not supported",
        // Crashed: its header asks for 1000000x1000000 RGBA, 4 TB; the allocation failed.
        "png/oversized-1000000x1000000.png": "1000000x1000000 picture; pictures larger than 16384 pixels a side are not supported",
        // Out of memory (fuzzer, 107 bytes): libpng allocated the 1.9 GB its sPLT chunk header claimed.
        "png/oom-chunk-claims-1.9GB.png": "its PNG chunk 'sPLT' at byte 33 claims 1984974407 bytes of data, but the file has 62 after its header",
        // Crashed: start + duration near Int64.max ticks overflowed (Swift arithmetic overflow trap).
        "movie/timing-overflow-tfdt.mp4": "the end is beyond the largest timestamp ELImage can hold",
        // Out of memory (fuzzer, 1708 bytes): a 'trun' box states 83886080 samples, and libavformat
        // 59 sized its index for them before reading (2.8 GB); the product's InputLimits refuses the block.
        "movie/oom-trun-claims-83M-samples.mp4": "asked for more memory than the limit of 512 MiB for one block",
        // Out of memory (fuzzer, 241 bytes): the MJPEG frame's header claimed a picture of 6.4 GB in
        // RGBA; frames are now held to the size negotiated with the device.
        "mjpeg/oom-header-claims-6.4GB.mjpeg": "not the 16x16 negotiated with the device",
    ]

    @Test("seed corpus parses (valid files) or is rejected (bad-*)", arguments: FuzzParser.allCases)
    func seedCorpus(parser: FuzzParser) throws {
        let files = Self.files(in: "Tests/Fuzz/Corpus", parser)
        #expect(files.count >= 3, "the seed corpus of \(parser) has \(files.count) files")
        for file in files {
            let name = URL(fileURLWithPath: file).lastPathComponent
            switch parser.consume(try Self.bytes(of: file)) {
            case .failed(let reason):
                Issue.record("\(file): \(reason)")
            case .rejected(let error) where !name.hasPrefix("bad-"):
                Issue.record("\(file) is a valid seed but was rejected: \(error)")
            case .parsed(let frames) where frames == 0 && !name.hasPrefix("bad-"):
                Issue.record("\(file) is a valid seed but gave no frames")
            default:
                break
            }
        }
    }

    @Test("regressions are rejected with the expected error", arguments: FuzzParser.allCases)
    func regressions(parser: FuzzParser) throws {
        for file in Self.files(in: "Tests/Fuzz/Regressions", parser) {
            let key = "\(parser.rawValue)/\(URL(fileURLWithPath: file).lastPathComponent)"
            let outcome = parser.consume(try Self.bytes(of: file))
            guard let expected = Self.expectedRejections[key] else {
                Issue.record("\(key) is not listed in FuzzRegressionTests.expectedRejections (outcome: \(outcome))")
                continue
            }
            guard case .rejected(let error) = outcome else {
                Issue.record("\(key): expected a rejection containing '\(expected)', got \(outcome)")
                continue
            }
            // A media parser's rejection is a malformedMedia error (its reason is checked); the
            // command line's is a usage error (its whole text).
            let reason = if case .malformedMedia(_, _, let reason)? = error as? ELImageError { reason } else { "\(error)" }
            #expect(reason.contains(expected), "\(key): \(reason)")
        }
    }

    @Test func everyListedRegressionExists() {
        for key in Self.expectedRejections.keys {
            #expect(FileManager.default.fileExists(atPath: Repository.path("Tests/Fuzz/Regressions/\(key)")), "\(key) is missing")
        }
    }

    @Test func pngChecksumRepairRestoresDamagedCRCs() throws {
        let valid = try Self.bytes(of: Repository.path("Tests/Fuzz/Corpus/png/rgb24.png"))
        #expect(PNGChecksumRepair.repaired(valid) == valid)
        let damaged = try Self.bytes(of: Repository.path("Tests/Fuzz/Corpus/png/bad-header-crc.png"))
        #expect(damaged != valid)
        #expect(PNGChecksumRepair.repaired(damaged) == valid)
        #expect(PNGChecksumRepair.repaired(Array(valid.prefix(20))) == Array(valid.prefix(20)))
        #expect(PNGChecksumRepair.repaired([1, 2, 3]) == [1, 2, 3])
    }

    @Test func rawYUVParametersComeFromTheFirstBytes() {
        let input = RawYUVFuzzInput([2, 0x10, 0x00, 0x09, 0x01, 30, 1, 0xAA, 0xBB])
        #expect(input.format == PixelFormat.allCases[2])
        #expect((input.width, input.height) == (16, 265))
        #expect(input.frameRate == Y4MHeader.Ratio(30, 1))
        #expect(Array(input.file) == [0xAA, 0xBB])
        let empty = RawYUVFuzzInput([])
        #expect((empty.width, empty.height, empty.file.count) == (0, 0, 0))
    }

    // MARK: Helpers

    /// The files in `root/<parser>`, sorted; none when the folder does not exist.
    static func files(in root: String, _ parser: FuzzParser) -> [String] {
        let folder = Repository.path("\(root)/\(parser.rawValue)")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.sorted().map { "\(folder)/\($0)" }
    }

    static func bytes(of path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
