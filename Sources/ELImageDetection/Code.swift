import Foundation

/// A machine-readable code: its symbology, decoded text and corners.
public struct Code: Sendable {
    /// The symbology as zxing-cpp names it: "QRCode", "EAN-13", "UPC-A", "Code128", "DataMatrix", ...
    public let format: String
    /// The decoded text (UTF-8).
    public let text: String
    /// The symbol's corners, 0...1 across the frame: top left, top right, bottom right, bottom
    /// left of the symbol as printed (for 1D codes, the ends of the scan lines that read it).
    public let points: [CGPoint]
    /// The corners in the frame's pixels.
    public let pixelPoints: [CGPoint]

    public init(format: String, text: String, points: [CGPoint], pixelPoints: [CGPoint]) {
        self.format = format
        self.text = text
        self.points = points
        self.pixelPoints = pixelPoints
    }

    /// The JSON Lines `type` of this code: "qr", "ean13", "code128", "datamatrix", ... (the
    /// format's name in lower case without punctuation; "QRCode" becomes "qr").
    public var typeName: String {
        if format == "QRCode" { return "qr" }
        return String(format.lowercased().filter { $0.isLetter || $0.isNumber })
    }
}
