import ELImage

/// The file parsers that the fuzzers drive, each through an entry point that takes arbitrary
/// bytes (see `consume(_:)`).
///
/// The raw value names the parser on the command line, in `ELIMAGE_FUZZ_PARSER` and in the corpus
/// folders (`Tests/Fuzz/Corpus/<name>`, `Tests/Fuzz/Regressions/<name>`).
public enum FuzzParser: String, CaseIterable, Sendable, CustomStringConvertible {
    /// `Y4MReader`: a YUV4MPEG2 file.
    case y4m
    /// `RawYUVReader`: the frame size, format and rate come from the first bytes (`RawYUVFuzzInput`).
    case rawYUV = "raw-yuv"
    /// `PNGFile.read`, with the chunk CRCs of the input recomputed (`PNGChecksumRepair`).
    case png
    /// `JPEGFile.decode` and `JPEGFile.decodeYUV`.
    case jpeg
    /// `MovieDecoder`: opens a movie with libavformat and decodes its first frames with libavcodec.
    case movie

    public var description: String { rawValue }

    /// Parses `bytes` as this parser's kind of file and reads at most `FuzzLimits.framesPerInput`
    /// frames.
    /// - Returns: `.parsed` with the number of frames or images read, `.rejected` with the
    ///   `ELImageError` the parser threw, or `.failed` when the parser broke its contract (threw
    ///   another error, or returned frames inconsistent with what it reported).
    public func consume(_ bytes: [UInt8]) -> FuzzOutcome {
        do {
            let frames = switch self {
            case .y4m: try Y4MFuzzEntry.consume(bytes)
            case .rawYUV: try RawYUVFuzzEntry.consume(bytes)
            case .png: try PNGFuzzEntry.consume(bytes)
            case .jpeg: try JPEGFuzzEntry.consume(bytes)
            case .movie: try MovieFuzzEntry.consume(bytes)
            }
            return .parsed(frames: frames)
        } catch let error as ELImageError {
            return .rejected(error)
        } catch let violation as FuzzContractViolation {
            return .failed(violation.description)
        } catch {
            return .failed("\(self) threw an error that is not an ELImageError: \(String(reflecting: error))")
        }
    }
}
