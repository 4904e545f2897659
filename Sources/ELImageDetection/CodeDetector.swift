import CDetectors
import ELImage
import Foundation

/// Machine-readable codes through zxing-cpp: QR, Micro QR, Data Matrix, Aztec, PDF417, EAN-8/13,
/// UPC-A/E, Code 39/93/128, Codabar, ITF, DataBar. 1D codes read up to the angle where a scan
/// line still crosses the whole symbol (about 15–20°); 2D codes at any angle.
///
/// zxing-cpp rather than zbar: it reads Data Matrix (zbar does not) and is faster here (1–5 ms
/// against 5–9 ms per 640×360 frame, as measured for the issue); both read rotated 1D codes alike.
public final class CodeDetector: MetadataDetector {
    public let name = "codes"
    public let preferredAnalysisSize: (width: Int, height: Int)

    /// - Parameter analysisSize: the size frames are shrunk to fit in; small codes need pixels,
    ///   so the default is 640×360 (a module of a QR code wants at least 2 analysis pixels).
    public init(analysisSize: (width: Int, height: Int) = (640, 360)) {
        preferredAnalysisSize = analysisSize
    }

    public func detect(in image: AnalysisImage) throws -> [Detection] {
        var message = [CChar](repeating: 0, count: 256)
        let list = image.withRows { rows, bytesPerRow in
            el_codes_read(rows, Int32(image.width), Int32(image.height), Int32(bytesPerRow), &message, message.count)
        }
        guard let list else {
            throw ELImageError.invalidState(node: "CodeDetector", reason: "frame \(image.frame): \(String(messageBuffer: message))")
        }
        defer { el_code_list_destroy(list) }
        return (0..<Int(el_code_list_count(list))).map { index in
            let item = el_code_list_item(list, Int32(index))
            let corners = withUnsafeBytes(of: item.points) { Array($0.bindMemory(to: Float.self)) }
            let located = (0..<4).map { image.locate(x: Double(corners[$0 * 2]), y: Double(corners[$0 * 2 + 1])) }
            return .code(Code(format: String(cString: item.format), text: String(cString: item.text),
                              points: located.map(\.normalized), pixelPoints: located.map(\.pixels)))
        }
    }
}
