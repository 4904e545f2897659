import ELImage
import ELImageMedia

/// Fuzzes `PNGFile.read` (libpng's simplified API): the input is a whole `.png` file, whose chunk
/// CRCs are recomputed first (see `PNGChecksumRepair`).
enum PNGFuzzEntry: FuzzEntry {
    static func consume(_ bytes: [UInt8]) throws -> Int {
        try FuzzInputFile.with(PNGChecksumRepair.repaired(bytes), suffix: ".png") { path in
            let image = try PNGFile.read(path)
            try FuzzContractViolation.check(
                image.width > 0 && image.height > 0 && image.pixels.count == image.width * image.height * 4,
                "PNGFile.read returned a \(image.width)x\(image.height) image with \(image.pixels.count) bytes")
            return 1
        }
    }
}
