import ELImageTestSupport
import Foundation
import Testing

/// The files of an HLS output (segments, the playlist and its temporary name) are made as ELImage
/// makes its own outputs: new, never written through a link planted at their names, never an
/// input of the run.
@Suite("elimage run -o DIR/index.m3u8: the muxer's files")
struct HLSFilesToolTests {
    let elimage = BuiltProgram(name: "elimage")
    let bunny = Repository.path("Examples/Media/bigbuckbunny.mp4")

    @Test("Links planted at a segment's, the playlist's and its temporary file's names are replaced, their target untouched")
    func plantedLinks() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let victim = folder.path("victim.txt")
        try Data("keep me\n".utf8).write(to: URL(fileURLWithPath: victim))
        let stream = folder.path("live")
        try FileManager.default.createDirectory(atPath: stream, withIntermediateDirectories: false)
        for name in ["index-00000.ts", "index.m3u8.tmp", "index.m3u8"] {
            try FileManager.default.createSymbolicLink(atPath: "\(stream)/\(name)", withDestinationPath: victim)
        }
        let result = try await elimage.run(["run", bunny, "--frames", "30", "-y", "-o", "\(stream)/index.m3u8"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep me\n")
        for name in ["index-00000.ts", "index.m3u8"] {
            let kind = try FileManager.default.attributesOfItem(atPath: "\(stream)/\(name)")[.type] as? FileAttributeType
            #expect(kind == .typeRegular, "\(name) is \(String(describing: kind))")
        }
        #expect(!FileManager.default.fileExists(atPath: "\(stream)/index.m3u8.tmp"))
        // The stream plays: ffprobe reads through the playlist the frames the run says it streamed
        // (real-time pacing may drop some on a busy machine).
        let streamed = try #require(result.output.firstMatch(of: /streamed (\d+) frames/).flatMap { Int($0.1) }, "\(result.output)")
        let counted = try runTool("ffprobe", ["-v", "error", "-count_packets", "-select_streams", "v:0",
                                              "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", "\(stream)/index.m3u8"])
        let first = String(decoding: counted, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init)
        #expect(first == "\(streamed)", "\(String(decoding: counted, as: UTF8.self))")
    }

    @Test("A segment name that is the input (through a link) is refused, and the input kept")
    func segmentIsInput() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = folder.path("input.mp4")
        try FileManager.default.copyItem(atPath: bunny, toPath: input)
        let before = try Data(contentsOf: URL(fileURLWithPath: input))
        try FileManager.default.createSymbolicLink(atPath: folder.path("index-00000.ts"), withDestinationPath: input)
        let result = try await elimage.run(["run", input, "--frames", "30", "-o", folder.path("index.m3u8")])
        #expect(result.status == 1)
        #expect(result.errors.contains("\(folder.path("index-00000.ts")) is an input of this run (the same file)"), "\(result.errors)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == before)
    }
}
