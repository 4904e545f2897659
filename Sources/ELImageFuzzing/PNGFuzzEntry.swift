import ELImage
import ELImageMedia

/// Fuzzes `PNGFile.read` (libpng's simplified API) and `PNGFile.readPicture` (the command's PNG
/// path: 16-bit samples kept, `cICP` read): the input is a whole `.png` file, whose chunk CRCs are
/// recomputed first (see `PNGChecksumRepair`). Both readers see every input; the first rejection
/// is thrown after both ran.
enum PNGFuzzEntry: FuzzEntry {
    static func consume(_ bytes: [UInt8]) throws -> Int {
        try FuzzInputFile.with(PNGChecksumRepair.repaired(bytes), suffix: ".png") { path in
            var rejection: ELImageError?
            var read = 0
            do {
                let image = try PNGFile.read(path)
                try FuzzContractViolation.check(
                    image.width > 0 && image.height > 0 && image.pixels.count == image.width * image.height * 4,
                    "PNGFile.read returned a \(image.width)x\(image.height) image with \(image.pixels.count) bytes")
                read += 1
            } catch let error as ELImageError {
                rejection = error
            }
            do {
                try checkConsistent(try PNGFile.readPicture(path), number: 0, parser: "PNGFile.readPicture")
                read += 1
            } catch let error as ELImageError {
                rejection = rejection ?? error
            }
            if let rejection { throw rejection }
            return read
        }
    }
}
