import ELImage
import ELImagePreview
import ELImageTestSupport
import Foundation
import Testing

/// The preview window on a real Wayland compositor (a private headless weston with the desktop
/// shell), checked on `weston-screenshooter` screenshots. The window is made fullscreen, so that
/// it covers the output whatever the shell's placement.
@Suite("Preview window on Wayland (headless weston)")
struct PreviewWaylandTests {
    @Test("Colour bars fill a fullscreen window of their own size, pixel for pixel")
    func barsFullscreen() async throws {
        let server = try await DisplayServer(.weston)
        defer { server.stop() }
        let bars = try ColorBars(width: DisplayServer.width, height: DisplayServer.height)
        let problems = try await showBars(bars, on: server, viewport: (0, 0, bars.width, bars.height))
        #expect(problems.isEmpty, "\(problems.prefix(5))")
    }

    @Test("A 4:3 picture fullscreen on a 16:9 output is letterboxed")
    func letterbox() async throws {
        let server = try await DisplayServer(.weston)
        defer { server.stop() }
        let bars = try ColorBars(width: 640, height: 480)
        let problems = try await showBars(bars, on: server, viewport: (160, 0, 960, 720))
        #expect(problems.isEmpty, "\(problems.prefix(5))")
    }

    @Test("HiDPI: on an output of scale 2 the window's buffer has the output's pixels, so 1-pixel stripes stay sharp",
          .timeLimit(.minutes(3)))
    func hiDPI() async throws {
        let server = try await DisplayServer(.weston, scale: 2)
        defer { server.stop() }
        // Black and white columns, one pixel each, at the output's 2560x1440 pixels (1280x720
        // logical). Drawn into a buffer of logical size at scale 1, the compositor would enlarge a
        // 1280x720 picture: every stripe a mid gray.
        let (width, height) = (2 * DisplayServer.width, 2 * DisplayServer.height)
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in stride(from: 1, to: width, by: 2) { for channel in 0..<3 { pixels[(y * width + x) * 4 + channel] = 0 } }
        }
        let problems = try await withPreviewWindow(on: server, options: .init(title: "stripes", fullscreen: true)) { context, window in
            let input = RawDataInput()
            input --> window
            return try await waitForScreen(server) { screen in
                guard screen.count == width * height * 3 else { return ["screenshot of \(screen.count) bytes"] }
                var wrong = 0
                for y in stride(from: 8, to: height, by: 37) {
                    for x in 0..<width where abs(Int(screen[(y * width + x) * 3]) - (x % 2 == 0 ? 255 : 0)) > 24 { wrong += 1 }
                }
                return wrong == 0 ? [] : ["\(wrong) stripe pixels off by more than 24 levels"]
            } before: {
                try await input.process(pixels, width: width, height: height, format: .rgba, timestamp: .zero, on: context)
            }
        }
        #expect(problems.isEmpty, "\(problems.prefix(5))")
    }

    private func showBars(_ bars: ColorBars, on server: DisplayServer,
                          viewport: (x: Int, y: Int, width: Int, height: Int)) async throws -> [String] {
        try await withPreviewWindow(on: server, options: .init(title: "bars", fullscreen: true)) { context, window in
            let input = RawDataInput()
            input --> window
            // Sent again until the screen is right: the first frame may come before fullscreen.
            return try await waitForScreen(server) { screen in
                bars.mismatches(in: screen, viewport: viewport)
            } before: {
                try await input.process(bars.pixels, width: bars.width, height: bars.height, format: .rgba,
                                        timestamp: .zero, on: context)
            }
        }
    }
}
