// camera-app: the seeds' camera controller in one program. A live preview of the first camera
// (or of the bundled clip, looping, when there is none) through the beauty filter, with keys:
//
//     r  start / stop recording (MP4)      p  still photo (PNG)
//     c  next camera                       b  beauty on / off
//     g  background blur on / off          f  fullscreen
//     q, Escape or closing the window: quit
//     s  stop / start the live stream (with --stream)
//
//     swift run camera-app [INPUT] [--folder out] [--frames N] [--stream rtmp://HOST/APP/KEY]
//
// The window's title shows the state: recording time, preview frame rate and dropped frames.
// Needs a desktop (DISPLAY or WAYLAND_DISPLAY); `xvfb-run -a swift run camera-app` works too.
import ArgumentParser
import ELImage
import ELImageCamera
import ELImageMedia
import ELImagePreview
import Foundation

@main
struct CameraAppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "camera-app",
        abstract: "Live camera preview through beauty, with recording (r), photos (p), camera switch (c), beauty toggle (b) and background blur (g).")

    @Argument(help: "A camera (/dev/videoN) or a movie to show; none: the first camera, else the bundled clip (looping).")
    var input: String?

    @Option(help: "Where recordings and photos are saved.")
    var folder = "."

    @Option(help: "Quit after this many frames reached the window (for scripts); none: run until q.")
    var frames: Int?

    @Option(name: .customLong("pre-record"), help: "Keep this many seconds in memory: r then starts a recording that many seconds before the key.")
    var preRecord: Double?

    @Option(help: "Stream live while the app runs (s stops and starts it): rtmp://HOST/APP/KEY, srt://HOST:PORT or DIR/index.m3u8.")
    var stream: String?

    func run() async throws {
        let target = try stream.map { address in
            guard let target = StreamTarget(address) else {
                throw ValidationError("--stream \(address): give rtmp://HOST/APP/KEY, srt://HOST:PORT or DIR/index.m3u8")
            }
            return target
        }
        let display: PreviewDisplay
        do {
            display = try PreviewDisplay.connect()
        } catch {
            throw ValidationError("\(error)")
        }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let context = try RenderContext(windowSystem: display)
        let events = context.events  // subscribed before anything runs; ends when the context closes
        var said: Task<Void, Never>?
        do {
            if let preRecord, !(preRecord > 0) { throw ValidationError("--pre-record \(preRecord): give a positive number of seconds, e.g. 5") }
            let app = try CameraApp(context: context, display: display, input: input, folder: folder, frameLimit: frames,
                                    preRecord: preRecord.map { .milliseconds(Int64($0 * 1000)) }, stream: target)
            said = Task { await app.sayEvents(events) }
            try await app.run()
        } catch {
            await context.close()
            await said?.value
            throw error
        }
        await context.close()
        await said?.value
    }
}
