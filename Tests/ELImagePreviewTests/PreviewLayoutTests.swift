import ELImage
@testable import ELImagePreview
import ELImageTestSupport
import Testing

/// The window's geometry and pacing rules, without a window.
@Suite("Preview layout and pacing")
struct PreviewLayoutTests {
    @Test("fit letterboxes, fill crops, stretch covers")
    func viewports() {
        let frame = (width: 640, height: 480), window = (width: 1280, height: 720)
        #expect(PreviewScaling.fit.viewport(frame: frame, window: window) == (160, 0, 960, 720))
        #expect(PreviewScaling.fill.viewport(frame: frame, window: window) == (0, -120, 1280, 960))
        #expect(PreviewScaling.stretch.viewport(frame: frame, window: window) == (0, 0, 1280, 720))
        // A wide frame in a tall window: bars above and below.
        #expect(PreviewScaling.fit.viewport(frame: (1920, 1080), window: (600, 800)) == (0, 231, 600, 338))
        #expect(PreviewScaling.fit.viewport(frame: (0, 0), window: window) == (0, 0, 0, 0))
    }

    @Test("Frames are due at their timestamps from the first; a pause moves later frames; a jump back restarts")
    func playbackClock() {
        var clock = PlaybackClock()
        #expect(clock.delay(until: MediaTime(value: 10, timescale: 1)) == .zero)  // the first: at once
        let second = clock.delay(until: MediaTime(value: 11, timescale: 1))
        #expect(second > .milliseconds(900) && second <= .seconds(1))
        clock.setPaused(true)
        #expect(clock.isPaused)
        clock.setPaused(false)
        #expect(!clock.isPaused)
        #expect(clock.delay(until: MediaTime(value: 11, timescale: 1)) >= second - .milliseconds(100))
        #expect(clock.delay(until: MediaTime(value: 2, timescale: 1)) == .zero)  // a loop: counted again
        let after = clock.delay(until: MediaTime(value: 3, timescale: 1))
        #expect(after > .milliseconds(900) && after <= .seconds(1))
    }

    @Test("Wayland keys: evdev codes of the US layout")
    func waylandKeys() {
        #expect(WaylandConnection.key(forEvdevCode: 16) == .character("q"))
        #expect(WaylandConnection.key(forEvdevCode: 1) == .escape)
        #expect(WaylandConnection.key(forEvdevCode: 57) == .character(" "))
        #expect(WaylandConnection.key(forEvdevCode: 33) == .character("f"))
        #expect(WaylandConnection.key(forEvdevCode: 19) == .character("r"))
        #expect(WaylandConnection.key(forEvdevCode: 46) == .character("c"))
        #expect(WaylandConnection.key(forEvdevCode: 200) == nil)
    }
}
