import ELImage
import ELImagePreview
import Foundation
import Testing

/// The preview window on a real Wayland compositor (a private headless weston with the desktop
/// shell), checked on `weston-screenshooter` screenshots. The window is made fullscreen, so that
/// it covers the output whatever the shell's placement.
@Suite("Preview window on Wayland (headless weston)")
struct PreviewWaylandTests {
    @Test("Colour bars fill a fullscreen window of their own size, pixel for pixel")
    func barsFullscreen() async throws {
        let server = try DisplayServer(.weston)
        defer { server.stop() }
        let bars = try ColorBars(width: DisplayServer.width, height: DisplayServer.height)
        let problems = try await showBars(bars, on: server, viewport: (0, 0, bars.width, bars.height))
        #expect(problems.isEmpty, "\(problems.prefix(5))")
    }

    @Test("A 4:3 picture fullscreen on a 16:9 output is letterboxed")
    func letterbox() async throws {
        let server = try DisplayServer(.weston)
        defer { server.stop() }
        let bars = try ColorBars(width: 640, height: 480)
        let problems = try await showBars(bars, on: server, viewport: (160, 0, 960, 720))
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
