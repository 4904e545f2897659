import Foundation

/// The soak's offset curve as an SVG picture: the measured sound − video offset at every click,
/// the offset the drifting clock would have reached uncorrected, and the one-frame band.
struct OffsetChart {
    var points: [OffsetAnalysis.Point]
    var ppm: Double
    var frameMilliseconds: Double
    var title: String

    func svg() -> String {
        let (width, height) = (760.0, 360.0)
        let (left, right, top, bottom) = (64.0, 16.0, 40.0, 48.0)
        let last = max(points.last?.time ?? 1, 1)
        let timeScale = last >= 180 ? 60.0 : 1.0  // minutes for three minutes and more
        let timeStep = Self.niceCeiling(last / timeScale / 6)
        let duration = (last / timeScale / timeStep).rounded(.up) * timeStep * timeScale
        let uncorrectedEnd = ppm * last / 1000
        let measured = points.map { abs($0.offsetMilliseconds) }.max() ?? 0
        let step = Self.niceCeiling(max(frameMilliseconds * 1.5, abs(uncorrectedEnd) * 1.1, measured * 1.1) / 4)
        let limit = 4 * step
        let x = { (time: Double) in left + time / duration * (width - left - right) }
        let y = { (offset: Double) in top + (limit - offset) / (2 * limit) * (height - top - bottom) }
        var svg = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
        viewBox="0 0 \(Int(width)) \(Int(height))" font-family="sans-serif" font-size="12">
        <rect width="100%" height="100%" fill="white"/>
        <text x="\(left)" y="22" font-size="14" font-weight="bold">\(Self.escaped(title))</text>

        """
        // The one-frame band and the grid.
        svg += "<rect x=\"\(left)\" y=\(Self.quoted(y(frameMilliseconds))) width=\"\(width - left - right)\" "
            + "height=\(Self.quoted(y(-frameMilliseconds) - y(frameMilliseconds))) fill=\"#e8f4e8\"/>\n"
        for index in -4...4 {
            let value = Double(index) * step
            svg += "<line x1=\"\(left)\" x2=\"\(width - right)\" y1=\(Self.quoted(y(value))) y2=\(Self.quoted(y(value))) "
                + "stroke=\"\(index == 0 ? "#888" : "#ddd")\"/>\n"
            svg += "<text x=\"\(left - 6)\" y=\(Self.quoted(y(value) + 4)) text-anchor=\"end\">\(Self.number(value))</text>\n"
        }
        var tick = 0.0
        while tick <= duration / timeScale + 1e-9 {
            let position = x(tick * timeScale)
            svg += "<line x1=\(Self.quoted(position)) x2=\(Self.quoted(position)) y1=\"\(top)\" y2=\"\(height - bottom)\" stroke=\"#eee\"/>\n"
            svg += "<text x=\(Self.quoted(position)) y=\"\(height - bottom + 16)\" text-anchor=\"middle\">\(Self.number(tick))</text>\n"
            tick += timeStep
        }
        svg += "<text x=\"\((left + width - right) / 2)\" y=\"\(height - 10)\" text-anchor=\"middle\">"
            + "recording time (\(timeScale == 60 ? "minutes" : "seconds"))</text>\n"
        svg += "<text transform=\"translate(16 \((top + height - bottom) / 2)) rotate(-90)\" text-anchor=\"middle\">"
            + "sound − video (ms)</text>\n"
        // Without correction: the drift alone.
        svg += "<line x1=\"\(x(0))\" y1=\(Self.quoted(y(0))) x2=\"\(x(last))\" y2=\(Self.quoted(y(uncorrectedEnd))) "
            + "stroke=\"#c44\" stroke-dasharray=\"6 4\"/>\n"
        // Measured.
        let path = points.map { "\(Self.number(x($0.time), digits: 1)),\(Self.number(y($0.offsetMilliseconds), digits: 1))" }
        svg += "<polyline fill=\"none\" stroke=\"#1f5fbf\" stroke-width=\"1.5\" points=\"\(path.joined(separator: " "))\"/>\n"
        // Legend.
        let legendY = top + 14
        svg += "<line x1=\"\(left + 10)\" x2=\"\(left + 34)\" y1=\"\(legendY)\" y2=\"\(legendY)\" stroke=\"#1f5fbf\" stroke-width=\"1.5\"/>"
            + "<text x=\"\(left + 40)\" y=\"\(legendY + 4)\">measured at each click</text>\n"
        svg += "<line x1=\"\(left + 200)\" x2=\"\(left + 224)\" y1=\"\(legendY)\" y2=\"\(legendY)\" stroke=\"#c44\" stroke-dasharray=\"6 4\"/>"
            + "<text x=\"\(left + 230)\" y=\"\(legendY + 4)\">uncorrected (\(Self.number(ppm)) ppm)</text>\n"
        svg += "<rect x=\"\(left + 400)\" y=\"\(legendY - 6)\" width=\"24\" height=\"12\" fill=\"#e8f4e8\"/>"
            + "<text x=\"\(left + 430)\" y=\"\(legendY + 4)\">± one frame (\(Self.number(frameMilliseconds)) ms)</text>\n"
        svg += "</svg>\n"
        return svg
    }

    /// 1, 2, 2.5 or 5 times a power of ten, at least `value`.
    static func niceCeiling(_ value: Double) -> Double {
        guard value > 0 else { return 1 }
        let power = pow(10, (log10(value)).rounded(.down))
        for factor in [1, 2, 2.5, 5, 10] where factor * power >= value { return factor * power }
        return 10 * power
    }

    private static func number(_ value: Double, digits: Int = 0) -> String {
        if digits == 0, value == value.rounded() { return String(Int(value)) }
        return String(format: "%.\(max(digits, 1))f", value)
    }

    private static func quoted(_ value: Double) -> String { "\"" + number(value, digits: 1) + "\"" }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
    }
}
