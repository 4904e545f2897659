import ELImage
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// AVI files with empty (0-byte, dropped-frame) chunks decode as FFmpeg decodes them: the empty
/// chunks are skipped, never an error; a file really cut short still fails.
@Suite("elimage: AVI inputs with empty chunks", .closesContexts)
struct EmptyFrameTests {
    let elimage = BuiltProgram(name: "elimage")

    /// How many empty video chunks ("00dc" with size 0) the AVI holds (idx1 entries with no flags
    /// match too: at least the number of empty chunks).
    func emptyChunks(in path: String) throws -> Int {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let marker: [UInt8] = Array("00dc".utf8) + [0, 0, 0, 0]
        guard bytes.count >= marker.count else { return 0 }
        return (0...(bytes.count - marker.count)).filter { bytes[$0..<($0 + marker.count)].elementsEqual(marker) }.count
    }

    func probe(_ path: String, _ entries: String) throws -> String {
        String(decoding: try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_frames", "-count_packets",
                                                 "-show_entries", entries, "-of", "csv=p=0", path]), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs `input` into an MP4 (which keeps every decoded frame at its time) and checks the exit
    /// status and that the output has as many frames as ffmpeg decodes from the input.
    func expectDecodesLikeFFmpeg(_ input: String, in folder: TemporaryFolder) async throws {
        let output = folder.path("out.mp4")
        let result = try await elimage.run(["run", input, "-o", output])
        #expect(result.status == 0, "\(result.errors)")
        let expected = try #require(Int(try probe(input, "stream=nb_read_frames")))
        #expect(try Int(probe(output, "stream=nb_read_frames")) == expected)
        #expect(result.output.contains("wrote \(expected) frames"), "\(result.output)")
    }

    @Test("Gaps in a variable-rate source become empty AVI chunks (ffmpeg's AVI muxer): every real frame decodes, exit 0")
    func emptyChunksInside() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = folder.path("gaps.mkv")
        try runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=96x64:rate=25:duration=2",
                               // Whole frames at 1/25 s: gaps of 5 and 8 frames, exact in every time base.
                               "-vf", "settb=1/25,setpts='N+if(gte(N,10),5,0)+if(gte(N,30),8,0)'",
                               "-fps_mode", "passthrough", "-c:v", "libx264", source])
        let avi = folder.path("gaps.avi")
        try runTool("ffmpeg", ["-v", "error", "-y", "-i", source, "-fps_mode", "passthrough", "-r", "25",
                               "-c:v", "mjpeg", "-q:v", "5", "-pix_fmt", "yuvj420p", avi])
        #expect(try emptyChunks(in: avi) >= 13)
        // The header counts the 13 empty chunks as frames; ffmpeg decodes only the 50 others.
        #expect(try probe(avi, "stream=nb_frames,nb_read_frames") == "63,50")
        try await expectDecodesLikeFFmpeg(avi, in: folder)
    }

    @Test("An AVI ending in empty chunks (dropped frames after the last picture) is not 'cut short'")
    func emptyChunksAtTheEnd() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let plain = folder.path("five.avi")
        try runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=96x64:rate=25:duration=0.2",
                               "-c:v", "mjpeg", "-q:v", "5", "-pix_fmt", "yuvj420p", plain])
        let padded = folder.path("padded.avi")
        try AVIPadding.appendEmptyChunks(20, from: plain, to: padded)
        #expect(try emptyChunks(in: padded) >= 20)
        // ffprobe agrees the file lasts 25 frames (1 s) of which 5 decode, and ffmpeg decodes it without error.
        #expect(try probe(padded, "stream=nb_frames,nb_read_frames") == "25,5")
        try runTool("ffmpeg", ["-v", "error", "-xerror", "-i", padded, "-f", "null", "-"])
        try await expectDecodesLikeFFmpeg(padded, in: folder)

        // The same file cut in the middle of its data still fails, saying so.
        let data = try Data(contentsOf: URL(fileURLWithPath: padded))
        let cut = folder.path("cut.avi")
        try data.prefix(data.count * 6 / 10).write(to: URL(fileURLWithPath: cut))
        let result = try await elimage.run(["run", cut, "-o", folder.path("cut.mp4")])
        #expect(result.status == 1)
        #expect(result.errors.contains("cut.avi, frame "), "\(result.errors)")
    }
}

/// Appends empty video chunks ("00dc", 0 bytes: dropped frames, as capture programs write them)
/// to an AVI with one video stream and an idx1 index right after its movi list, indexing them and
/// counting them in the headers' frame counts.
enum AVIPadding {
    static func appendEmptyChunks(_ count: Int, from source: String, to destination: String) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))
        func find(_ text: String, from start: Int = 0, last: Bool = false) throws -> Int {
            let tag = Array(text.utf8)
            let positions = stride(from: 0, through: bytes.count - tag.count, by: 1)
            let match = last ? positions.reversed().first { bytes[$0..<($0 + 4)].elementsEqual(tag) }
                             : positions.first { $0 >= start && bytes[$0..<($0 + 4)].elementsEqual(tag) }
            guard let match else { throw ELImageError.invalidInput(what: "no \(text) in \(source)", hint: "") }
            return match
        }
        func read(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        func write(_ value: Int, at: Int) { for index in 0..<4 { bytes[at + index] = UInt8((value >> (8 * index)) & 0xFF) } }
        func word(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }

        let movi = try find("movi") - 8  // the LIST header
        let moviEnd = movi + 8 + read(movi + 4)
        let index = try find("idx1", last: true)
        guard index == moviEnd else { throw ELImageError.invalidInput(what: "idx1 does not follow movi in \(source)", hint: "") }
        let indexSize = read(index + 4)
        let tag: [UInt8] = Array("00dc".utf8)
        var chunks: [UInt8] = [], entries: [UInt8] = []
        for number in 0..<count {
            chunks += tag + word(0)
            // idx1 entry: id, flags, offset (from the 'movi' tag), size.
            let offset: Int = moviEnd + 8 * number - (movi + 8)
            entries += tag
            entries += word(0) + word(offset) + word(0)
        }
        let indexBody = Array(bytes[(index + 8)..<(index + 8 + indexSize)])
        let tail = Array(bytes[(index + 8 + indexSize)...])
        bytes = Array(bytes[..<moviEnd]) + chunks + Array("idx1".utf8) + word(indexSize + 16 * count) + indexBody + entries + tail
        write(read(movi + 4) + 8 * count, at: movi + 4)
        write(bytes.count - 8, at: 4)
        let mainHeader = try find("avih") + 8 + 16  // dwTotalFrames
        write(read(mainHeader) + count, at: mainHeader)
        let streamHeader = try find("strh") + 8 + 32  // dwLength
        write(read(streamHeader) + count, at: streamHeader)
        try Data(bytes).write(to: URL(fileURLWithPath: destination))
    }
}
