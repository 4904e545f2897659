import ELImage
import ELImagePreview
import ELImageTestSupport
import Foundation

/// Colour bars as a preview target: ffmpeg's `smptehdbars` as RGBA, and the check that a screen
/// shows them where a preview window should.
struct ColorBars {
    let width: Int
    let height: Int
    let pixels: [UInt8]

    init(width: Int, height: Int) throws {
        self.width = width
        self.height = height
        pixels = try runTool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "smptehdbars=size=\(width)x\(height)",
                                        "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgba", "-"])
            .withUnsafeBytes { Array($0) }
    }

    private func color(_ x: Int, _ y: Int) -> [Int] {
        let offset = (y * width + x) * 4
        return (0..<3).map { Int(pixels[offset + $0]) }
    }

    /// The centres of the runs of one colour, at least `width / 40` wide, on rows at a quarter and
    /// at nine tenths of the height: the bars' centres.
    var barCentres: [(x: Int, y: Int, color: [Int])] {
        var centres: [(Int, Int, [Int])] = []
        for y in [height / 4, height * 9 / 10] {
            var start = 0
            for x in 1...width where x == width || color(x, y) != color(start, y) {
                if x - start >= width / 40 { centres.append(((start + x) / 2, y, color(start, y))) }
                start = x
            }
        }
        return centres
    }

    /// What differs between `screen` (RGB, `DisplayServer.width` wide) and these bars shown in
    /// `viewport` (from the top left): each bar centre within `tolerance` levels, and black outside
    /// the viewport (the letterbox). Empty when the screen is right.
    func mismatches(in screen: [UInt8], viewport: (x: Int, y: Int, width: Int, height: Int),
                    tolerance: Int = 3) -> [String] {
        let screenWidth = DisplayServer.width, screenHeight = DisplayServer.height
        guard screen.count == screenWidth * screenHeight * 3 else { return ["screenshot has \(screen.count) bytes"] }
        func shown(_ x: Int, _ y: Int) -> [Int] {
            let offset = (y * screenWidth + x) * 3
            return (0..<3).map { Int(screen[offset + $0]) }
        }
        var problems: [String] = []
        let centres = barCentres
        if centres.count < 10 { problems.append("only \(centres.count) bars found in the reference") }
        for (x, y, expected) in centres {
            let screenX = viewport.x + Int((Double(x) + 0.5) * Double(viewport.width) / Double(width))
            let screenY = viewport.y + Int((Double(y) + 0.5) * Double(viewport.height) / Double(height))
            let got = shown(screenX, screenY)
            if zip(got, expected).contains(where: { abs($0 - $1) > tolerance }) {
                problems.append("bar at (\(x), \(y)) shown at (\(screenX), \(screenY)) is \(got), expected \(expected)")
            }
        }
        var outside: [(Int, Int)] = []
        if viewport.x > 0 { outside += [(viewport.x / 2, screenHeight / 2), (viewport.x + viewport.width + viewport.x / 2, screenHeight / 2)] }
        if viewport.y > 0 { outside += [(screenWidth / 2, viewport.y / 2), (screenWidth / 2, viewport.y + viewport.height + viewport.y / 2)] }
        for (x, y) in outside where shown(x, y) != [0, 0, 0] {
            problems.append("letterbox at (\(x), \(y)) is \(shown(x, y)), expected black")
        }
        return problems
    }
}

/// Takes screenshots until `check` finds nothing wrong, for up to `seconds`; returns the last problems.
/// `before` runs before each screenshot (e.g. sends the frame again).
func waitForScreen(_ server: DisplayServer, seconds: Double = 90, check: ([UInt8]) -> [String],
                   before: () async throws -> Void = {}) async throws -> [String] {
    let deadline = Date().addingTimeInterval(seconds)
    var problems = ["no screenshot taken"]
    repeat {
        try await before()
        try await Task.sleep(for: .milliseconds(100))
        problems = check(try server.screenshot())
        if problems.isEmpty { return [] }
        try await Task.sleep(for: .milliseconds(200))
    } while Date() < deadline
    return problems
}

/// A preview window on `server`, with its context; both closed after `body`, also when it throws.
func withPreviewWindow<T>(on server: DisplayServer, options: PreviewWindow.Options,
                          _ body: (RenderContext, PreviewWindow) async throws -> T) async throws -> T {
    let display = try PreviewDisplay.connect(server.kind == .xvfb ? .x11 : .wayland,
                                             displayName: server.kind == .xvfb ? server.name : server.runtimeFolder.path(server.name))
    let context = try RenderContext(windowSystem: display)
    do {
        let window = try PreviewWindow(context: context, display: display, options: options)
        let result = try await body(context, window)
        await context.close()
        return result
    } catch {
        await context.close()
        throw error
    }
}
