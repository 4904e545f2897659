import ELImage
import ELImageCommandLine
import ELImageMedia

/// The parsers that the fuzzers drive (files, a camera's frames, the command line's text), each through an entry point that takes arbitrary
/// bytes (see `consume(_:)`).
///
/// The raw value names the parser on the command line, in `ELIMAGE_FUZZ_PARSER` and in the corpus
/// folders (`Tests/Fuzz/Corpus/<name>`, `Tests/Fuzz/Regressions/<name>`).
public enum FuzzParser: String, CaseIterable, Sendable, CustomStringConvertible {
    /// `Y4MReader`: a YUV4MPEG2 file.
    case y4m
    /// `RawYUVReader`: the frame size, format and rate come from the first bytes (`RawYUVFuzzInput`).
    case rawYUV = "raw-yuv"
    /// `PNGFile.read` and `PNGFile.readPicture` (the command's PNG path), with the chunk CRCs of
    /// the input recomputed (`PNGChecksumRepair`).
    case png
    /// `JPEGFile.decode` and `JPEGFile.decodeYUV`.
    case jpeg
    /// `MovieDecoder`: opens a movie with libavformat and decodes its first frames with libavcodec.
    case movie
    /// `MovieAudioReader` and `TranscodedAudioTrack`: a movie's sound as a recording copies or
    /// transcodes it.
    case movieAudio = "movie-audio"
    /// The camera's `MJPEGDecoder`: the negotiated size, then one frame (`MJPEGFuzzEntry`).
    case mjpeg
    /// The `elimage` command's text parsers, one picked by the first byte (`CommandLineArgumentKind`).
    case cliArguments = "cli-arguments"
    /// The detectors that parse pictures: `CodeDetector` (zxing-cpp) and `FaceDetector` (OpenCV),
    /// on a picture whose size the first bytes give (`DetectorsFuzzEntry`).
    case detectors

    public var description: String { rawValue }

    /// Parses `bytes` as this parser's kind of file and reads at most `FuzzLimits.framesPerInput`
    /// frames.
    /// - Returns: `.parsed` with the number of frames or images read, `.rejected` with the typed
    ///   error the parser threw (`ELImageError`; `AudioCaptureError` for the audio encoder,
    ///   `UsageError` for the command line), or `.failed` when the parser broke its contract
    ///   (threw another error, or returned output inconsistent with what it reported).
    public func consume(_ bytes: [UInt8]) -> FuzzOutcome {
        do {
            let frames = switch self {
            case .y4m: try Y4MFuzzEntry.consume(bytes)
            case .rawYUV: try RawYUVFuzzEntry.consume(bytes)
            case .png: try PNGFuzzEntry.consume(bytes)
            case .jpeg: try JPEGFuzzEntry.consume(bytes)
            case .movie: try MovieFuzzEntry.consume(bytes)
            case .movieAudio: try MovieAudioFuzzEntry.consume(bytes)
            case .mjpeg: try MJPEGFuzzEntry.consume(bytes)
            case .cliArguments: try CommandLineArgumentsFuzzEntry.consume(bytes)
            case .detectors: try DetectorsFuzzEntry.consume(bytes)
            }
            return .parsed(frames: frames)
        } catch let error as ELImageError {
            return .rejected(error)
        } catch let error as AudioCaptureError {
            return .rejected(error)
        } catch let error as UsageError {
            return .rejected(error)
        } catch let violation as FuzzContractViolation {
            return .failed(violation.description)
        } catch {
            return .failed("\(self) threw an error that is not an ELImageError: \(String(reflecting: error))")
        }
    }
}
