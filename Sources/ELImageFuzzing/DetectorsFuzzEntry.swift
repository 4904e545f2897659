import ELImage
import ELImageDetection
import Foundation

/// Fuzzes the detectors that read pictures with their own parsers: `CodeDetector` (zxing-cpp
/// finds and decodes barcodes and QR codes) and `FaceDetector` (OpenCV's cascade). The input's
/// first 2 bytes give the analysis picture's size (16 plus each byte modulo 113: 16...128 a
/// side), the rest its 8-bit luma, top row first (zeros where the input ends).
enum DetectorsFuzzEntry: FuzzEntry {
    /// The length of the size block.
    static let parameterBytes = 2

    /// One face detector for the process: loading the cascade takes longer than a run over a
    /// picture.
    private static let faces = Result { try FaceDetector() }

    static func consume(_ bytes: [UInt8]) throws -> Int {
        func byte(_ index: Int) -> Int { index < bytes.count ? Int(bytes[index]) : 0 }
        let width = 16 + byte(0) % 113, height = 16 + byte(1) % 113
        var luma = Array(bytes.dropFirst(parameterBytes).prefix(width * height))
        luma += [UInt8](repeating: 0, count: width * height - luma.count)
        let picture = try PixelBuffer(format: .gray8, width: width, height: height, data: luma, colorSpace: .jpeg)
        let image = AnalysisImage(picture: picture, frame: 0, frameWidth: width * 4, frameHeight: height * 4)
        let found = try CodeDetector().detect(in: image) + (try faces.get()).detect(in: image)
        for detection in found {
            switch detection {
            case .code(let code):
                try FuzzContractViolation.check(
                    code.points.count == 4 && code.points.allSatisfy { $0.x.isFinite && $0.y.isFinite },
                    "CodeDetector found a \(code.format) code with corners \(code.points)")
            case .face(let face):
                let bounds = face.bounds
                try FuzzContractViolation.check(
                    bounds.minX >= 0 && bounds.minY >= 0 && bounds.maxX <= 1.0001 && bounds.maxY <= 1.0001,
                    "FaceDetector found a face at \(bounds), outside the picture")
            default:
                break
            }
        }
        return 1
    }
}
