import CX11
import ELImage
import ELImagePreview
import ELImageTestSupport
import ELImageTesting
import Foundation
import Testing

/// The preview window on a real X server (a private Xvfb), checked on screenshots (`xwd -root`).
@Suite("Preview window on X11 (Xvfb)")
struct PreviewX11Tests {
    @Test("Colour bars fill a window of their own size, pixel for pixel")
    func barsFullWindow() async throws {
        let server = try await DisplayServer(.xvfb)
        defer { server.stop() }
        let bars = try ColorBars(width: DisplayServer.width, height: DisplayServer.height)
        let problems = try await withPreviewWindow(on: server, options: .init(title: "bars")) { context, window in
            let input = RawDataInput()
            input --> window
            try await input.process(bars.pixels, width: bars.width, height: bars.height, format: .rgba,
                                    timestamp: .zero, on: context)
            return try await waitForScreen(server) { bars.mismatches(in: $0, viewport: (0, 0, bars.width, bars.height)) }
        }
        #expect(problems.isEmpty, "\(problems.prefix(5))")
    }

    @Test("The window follows the frames' size: a small frame, then full-size bars fill the screen")
    func followsFrameSize() async throws {
        let server = try await DisplayServer(.xvfb)
        defer { server.stop() }
        let bars = try ColorBars(width: DisplayServer.width, height: DisplayServer.height)
        let small = try ColorBars(width: 320, height: 240)
        let problems = try await withPreviewWindow(on: server, options: .init(title: "sizes")) { context, window in
            let input = RawDataInput()
            input --> window
            try await input.process(small.pixels, width: small.width, height: small.height, format: .rgba,
                                    timestamp: .zero, on: context)
            let smallProblems = try await waitForScreen(server) { small.mismatches(in: $0, viewport: (0, 0, 320, 240)) }
            try await input.process(bars.pixels, width: bars.width, height: bars.height, format: .rgba,
                                    timestamp: MediaTime(value: 1, timescale: 25), on: context)
            return smallProblems + (try await waitForScreen(server) {
                bars.mismatches(in: $0, viewport: (0, 0, bars.width, bars.height))
            })
        }
        #expect(problems.isEmpty, "\(problems.prefix(5))")
    }

    @Test("A 4:3 picture in a 16:9 window is letterboxed: bars scaled into the middle, black at the sides")
    func letterbox() async throws {
        let server = try await DisplayServer(.xvfb)
        defer { server.stop() }
        let bars = try ColorBars(width: 640, height: 480)
        let options = PreviewWindow.Options(title: "letterbox", size: (DisplayServer.width, DisplayServer.height))
        let problems = try await withPreviewWindow(on: server, options: options) { context, window in
            let input = RawDataInput()
            input --> window
            try await input.process(bars.pixels, width: bars.width, height: bars.height, format: .rgba,
                                    timestamp: .zero, on: context)
            // 640x480 scaled by 1.5 is 960x720, centred: 160 pixels of black on each side.
            return try await waitForScreen(server) { bars.mismatches(in: $0, viewport: (160, 0, 960, 720)) }
        }
        #expect(problems.isEmpty, "\(problems.prefix(5))")
    }

    @Test("The close button (WM_DELETE_WINDOW) and q call onCloseRequest once")
    func closeRequests() async throws {
        let server = try await DisplayServer(.xvfb)
        defer { server.stop() }
        let calls = Waitable(0)
        let requested = try await withPreviewWindow(on: server, options: .init(title: "close me")) { context, window in
            window.onCloseRequest = { calls.update { $0 += 1 } }
            let found = try await server.window(titled: "close me")
            let id = try #require(found.flatMap { UInt($0) }, "no window appeared")
            try Self.sendDeleteWindow(to: id, display: server.name)
            let byCloseButton = await calls.wait { $0 >= 1 } && window.isCloseRequested
            // q after it must not call the handler again.
            try server.press("q", in: String(id))
            try await Task.sleep(for: .milliseconds(300))
            return byCloseButton
        }
        #expect(requested)
        #expect(calls.value == 1)
    }

    /// What a window manager sends when the close button is pressed.
    private static func sendDeleteWindow(to window: UInt, display name: String) throws {
        guard let display = XOpenDisplay(name) else { throw ServerFailure("cannot open \(name)") }
        defer { XCloseDisplay(display) }
        var event = XEvent()
        event.xclient.type = ClientMessage
        event.xclient.window = Window(window)
        event.xclient.message_type = XInternAtom(display, "WM_PROTOCOLS", 0)
        event.xclient.format = 32
        event.xclient.data.l.0 = Int(XInternAtom(display, "WM_DELETE_WINDOW", 0))
        XSendEvent(display, Window(window), 0, NoEventMask, &event)
        XFlush(display)
    }

    @Test("A preview slower than the source drops preview frames, counted; a sink beside it gets every frame")
    func slowPreviewDropsOnlyPreviewFrames() async throws {
        let server = try await DisplayServer(.xvfb)
        defer { server.stop() }
        let frames = 40
        // At most 4 frames a second shown: far slower than the frames are pushed.
        let options = PreviewWindow.Options(title: "slow", maximumFrameRate: 4)
        let (counted, statistics, droppedEvents) = try await withPreviewWindow(on: server, options: options) { context, window in
            let events = context.events
            // The window's drops as events, until the context closes.
            let drops = Task {
                await events.reduce(0) { total, event in
                    if case .dropped(let drop) = event, drop.node.refers(to: window) { return total + drop.count }
                    return total
                }
            }
            let input = RawDataInput()
            let (recorder, received) = imageCollector()
            input --> window
            input --> recorder
            let pixels = [UInt8](repeating: 200, count: 64 * 48 * 4)
            for index in 0..<frames {
                try await input.process(pixels, width: 64, height: 48, format: .rgba,
                                        timestamp: MediaTime(frame: Int64(index), framesPerSecond: 30), on: context)
            }
            // The last frame waits in the mailbox until the window shows it.
            await waitUntil { window.statistics.presented > 0 }
            await window.close()
            return (received.count, window.statistics, drops)
        }
        #expect(counted == frames)
        #expect(statistics.received == frames)
        #expect(statistics.presented >= 1)
        #expect(statistics.dropped >= 1)
        #expect(statistics.presented + statistics.dropped == frames)
        #expect(await droppedEvents.value == statistics.dropped, "each dropped preview frame is a .dropped event")
    }
}
