import ELImage
import ELImageCamera
import ELImageMedia
import Foundation
import Synchronization

/// What the camera app shows: a camera (switchable to the next one), or a movie looping in real
/// time when there is no camera, so that the app behaves the same on a machine without one.
final class AppSource: Sendable {
    let node: ImageOutput
    private let camera: Camera?
    private let movie: MovieInput?
    private let closed = Atomic<Bool>(false)

    private init(camera: Camera? = nil, movie: MovieInput? = nil) {
        self.camera = camera
        self.movie = movie
        let node: (any ImageOutput)? = camera ?? movie
        self.node = node ?? RawDataInput()  // never taken: one of the two is given
    }

    /// `path` (a camera or a movie), else the first camera, else the bundled clip.
    static func open(_ path: String?) throws -> AppSource {
        let chosen = path ?? CameraDevice.list().devices.first?.path
        if let chosen, chosen.hasPrefix("/dev/video") {
            return AppSource(camera: Camera(device: chosen, settings: CaptureSettings(.hd720)))
        }
        let file = chosen ?? BundledMedia.path("bigbuckbunny.mp4")
        return AppSource(movie: try MovieInput(path: file, options: .init(pacing: .realTime, loop: true)))
    }

    /// "camera /dev/video0" or the movie's file name.
    var name: String {
        if let camera { return "camera \(camera.devicePath)" }
        return movie.map { URL(fileURLWithPath: $0.path).lastPathComponent } ?? "nothing"
    }

    /// Frames the source itself dropped (late or replaced), beside the window's.
    var droppedFrames: Int {
        camera?.statistics.dropped ?? movie?.statistics.dropped ?? 0
    }

    /// Runs until `close()` (or the camera stops: a failure, an unplugged device).
    func run(_ context: RenderContext) async throws {
        if let camera {
            let events = context.events  // before the start, so that the camera's end cannot be missed
            try camera.start(on: context)
            if closed.load(ordering: .acquiring) { await camera.close() }
            await events.end(of: camera)
            await camera.close()
        } else if let movie {
            try await movie.run(on: context)
        }
    }

    /// Ends the run (from a callback: `Task { await source.close() }`).
    func close() async {
        closed.store(true, ordering: .releasing)
        await camera?.close()
        await movie?.close()
    }

    /// Moves to the next camera in the device list; says what happened.
    func switchCamera() -> String {
        guard let camera else { return "no camera: showing \(name)" }
        let paths = CameraDevice.list().devices.map(\.path)
        guard paths.count > 1, let index = paths.firstIndex(of: camera.devicePath) else {
            return "no other camera than \(camera.devicePath)"
        }
        let next = paths[(index + 1) % paths.count]
        do {
            try camera.switchDevice(to: next)
            return "switched to \(next)"
        } catch {
            return "cannot switch to \(next): \(error)"
        }
    }
}
