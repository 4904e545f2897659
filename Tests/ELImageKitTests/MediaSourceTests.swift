import ELImage
import ELImageCamera
import ELImageKit
import ELImageTestSupport
import Foundation
import Testing

/// `MediaSource.open`: any input by its path, without having to think of a fallback.
@Suite("MediaSource", .closesContexts)
struct MediaSourceTests {
    @Test("A movie and a still image open by their path alone and deliver their frames")
    func opensFiles() async throws {
        let context = try TestContexts.make()
        var options = MediaSource.Options()
        options.frames = 3
        let movie = try MediaSource.open(Repository.path("Examples/Media/bigbuckbunny.mp4"), options: options)
        #expect(movie.kind == .movie(Repository.path("Examples/Media/bigbuckbunny.mp4")))
        let counter = FrameCounter()
        movie.node.addTarget(counter)
        try await movie.run(on: context)
        #expect(counter.count == 3)

        let still = try MediaSource.open(Repository.path("Examples/Media/astronaut.png"), options: options)
        #expect(still.kind == .image(Repository.path("Examples/Media/astronaut.png")))
        let stills = FrameCounter()
        still.node.addTarget(stills)
        try await still.run(on: context)
        #expect(stills.count == 3)
    }

    @Test("A missing file: the error names the path, says it does not exist and what to check")
    func missingFile() throws {
        let path = "/nonexistent/folder/clip.mp4"
        let error = #expect(throws: ELImageError.self) { try MediaSource.open(path) }
        let text = error.map { "\($0)" } ?? ""
        #expect(text.contains("cannot open \(path)"), "\(text)")
        #expect(text.contains("No such file"), "\(text)")
        #expect(text.contains("check the path"), "\(text)")
    }

    @Test("No path, no camera and no fallback: a clear error instead of a guess",
          .enabled(if: CameraDevice.list().devices.isEmpty, "a camera is connected: MediaSource.open(nil) opens it"))
    func nothingToOpen() throws {
        let error = #expect(throws: ELImageError.self) { try MediaSource.open(nil) }
        #expect(error.map { "\($0)" }?.contains("no path was given and no camera was found") == true)
    }
}
