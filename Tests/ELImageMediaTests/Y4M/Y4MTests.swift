import ELImage
@testable import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

// Y4M and raw YUV files, checked against ffmpeg: files ffmpeg writes must read back byte for
// byte as ffmpeg decodes them, and files we write must decode in ffmpeg to the bytes we gave.

/// A source that ffmpeg turns into a Y4M file.
struct FFmpegY4MCase: Sendable, CustomTestStringConvertible {
    var pixelFormat: String
    var width: Int
    var height: Int
    var rate = "25"
    var filters: [String] = []
    var extra: [String] = []
    var format: PixelFormat
    var chromaFormat: Y4MHeader.ChromaFormat
    var testDescription: String { "\(pixelFormat) \(width)x\(height) \(filters.joined(separator: ",")) \(extra.joined(separator: " "))" }
}

// MARK: - Tests

@Suite("Y4M files", .closesContexts)
struct Y4MTests {
    // MARK: Header

    @Test func headerParsesEveryField() throws {
        let header = try Y4MHeader(parsing: "YUV4MPEG2 W33 H17 F30000:1001 It A128:117 C420mpeg2 XYSCSS=420MPEG2 XCOLORRANGE=FULL",
                                   file: "t.y4m")
        #expect(header.width == 33)
        #expect(header.height == 17)
        #expect(header.frameRate == Y4MHeader.Ratio(30000, 1001))
        #expect(header.interlacing == .topFieldFirst)
        #expect(header.pixelAspect == Y4MHeader.Ratio(128, 117))
        #expect(header.chromaFormat == .yuv420mpeg2)
        #expect(header.options == ["YSCSS=420MPEG2", "COLORRANGE=FULL"])
        #expect(header.colorRange == .full)
        #expect(header.pixelFormat == .i420)
        #expect(header.chromaLocation == .left)
        #expect(header.frameByteCount == 33 * 17 + 2 * 17 * 9)
        #expect(header.line == "YUV4MPEG2 W33 H17 F30000:1001 It A128:117 C420mpeg2 XYSCSS=420MPEG2 XCOLORRANGE=FULL")
        #expect(try Y4MHeader(parsing: header.line, file: "t.y4m") == header)
    }

    @Test func headerDefaultsWhenFieldsAreAbsent() throws {
        let header = try Y4MHeader(parsing: "YUV4MPEG2 W8 H6", file: "t.y4m")
        #expect(header.frameRate == 25)
        #expect(header.interlacing == .progressive)
        #expect(header.pixelAspect == Y4MHeader.Ratio(0, 0))
        #expect(header.chromaFormat == .yuv420jpeg)
        #expect(header.chromaLocation == .center)
        #expect(header.options.isEmpty)
        #expect(header.colorRange == nil)
        #expect(header.line == "YUV4MPEG2 W8 H6 F25:1 Ip A0:0 C420jpeg")
    }

    @Test func headerIgnoresUnknownTagsAndKeepsOptionsInOrder() throws {
        let header = try Y4MHeader(parsing: "YUV4MPEG2 Zfoo W8  H6 Q Xb=1 Xa=2 XCOLORRANGE=LIMITED", file: "t.y4m")
        #expect(header.width == 8 && header.height == 6)
        #expect(header.options == ["b=1", "a=2", "COLORRANGE=LIMITED"])
        #expect(header.colorRange == .limited)
    }

    @Test(arguments: [
        ("420jpeg", PixelFormat.i420, ChromaLocation.center),
        ("420", .i420, .center),
        ("420mpeg2", .i420, .left),
        ("420paldv", .i420, .topLeft),
        ("422", .i422, .left),
        ("444", .i444, .center),
        ("mono", .gray8, .center),
    ])
    func headerMapsChromaFormats(value: String, format: PixelFormat, location: ChromaLocation) throws {
        let header = try Y4MHeader(parsing: "YUV4MPEG2 W4 H2 C\(value)", file: "t.y4m")
        #expect(header.chromaFormat.rawValue == value)
        #expect(header.pixelFormat == format)
        #expect(header.chromaLocation == location)
        #expect(header.line.hasSuffix(" C\(value)"))
    }

    @Test func headerColorRangeSetterReplacesInPlace() throws {
        var header = try Y4MHeader(parsing: "YUV4MPEG2 W4 H2 Xa XCOLORRANGE=LIMITED Xb", file: "t.y4m")
        header.colorRange = .full
        #expect(header.options == ["a", "COLORRANGE=FULL", "b"])
        header.colorRange = nil
        #expect(header.options == ["a", "b"])
        header.colorRange = .limited
        #expect(header.options == ["a", "b", "COLORRANGE=LIMITED"])
    }

    @Test func headerForWriting() throws {
        let header = try Y4MHeader(width: 33, height: 17, format: .i420, frameRate: Y4MHeader.Ratio(30000, 1001),
                                   colorRange: .full, chromaLocation: .topLeft)
        #expect(header.line == "YUV4MPEG2 W33 H17 F30000:1001 Ip A1:1 C420paldv XCOLORRANGE=FULL")
        #expect(try Y4MHeader(width: 4, height: 4, format: .gray8).line == "YUV4MPEG2 W4 H4 F25:1 Ip A1:1 Cmono XCOLORRANGE=LIMITED")
        #expect(throws: ELImageError.self) { try Y4MHeader(width: 4, height: 4, format: .nv12) }
        #expect(throws: ELImageError.self) { try Y4MHeader(width: 0, height: 4, format: .i420) }
        #expect(throws: ELImageError.self) { try Y4MHeader(width: 4, height: 16385, format: .i420) }
        #expect(throws: ELImageError.self) { try Y4MHeader(width: 4, height: 4, format: .i420, frameRate: Y4MHeader.Ratio(25, 0)) }
    }

    @Test(arguments: [
        ("YUV4MPEG2 H48 C420jpeg", "no W (width)"),
        ("YUV4MPEG2 W64 C420jpeg", "no H (height)"),
        ("YUV4MPEG2 W0 H48", "'W0'"),
        ("YUV4MPEG2 W64 H0", "'H0'"),
        ("YUV4MPEG2 W-64 H48", "'W-64'"),
        ("YUV4MPEG2 Wabc H48", "'Wabc'"),
        ("YUV4MPEG2 W H48", "W (width) must be a whole number"),
        ("YUV4MPEG2 W64 H16385", "H (height) must be at most 16384, found 'H16385'"),
        ("YUV4MPEG2 W99999999999999999999 H2", "at most 16384"),
        ("YUV4MPEG2 W64 H48 C422p10", "is a 10-bit format; Y4M is read at 8 bits and as 10-bit 4:2:0"),
        ("YUV4MPEG2 W64 H48 Cmono16", "16-bit"),
        ("YUV4MPEG2 W64 H48 C411", "'C411' is not supported"),
        ("YUV4MPEG2 W64 H48 C", "C (colourspace)"),
        ("YUV4MPEG2 W64 H48 F25:0", "'F25:0'"),
        ("YUV4MPEG2 W64 H48 F0:1", "'F0:1'"),
        ("YUV4MPEG2 W64 H48 F25", "F (frame rate)"),
        ("YUV4MPEG2 W64 H48 Fx:y", "F (frame rate)"),
        ("YUV4MPEG2 W64 H48 A1:0", "A (pixel aspect)"),
        ("YUV4MPEG2 W64 H48 Ix", "I (interlacing)"),
        ("YUV4MPEG W64 H48", "must start with 'YUV4MPEG2'"),
        ("", "must start with 'YUV4MPEG2'"),
    ])
    func headerRejects(line: String, expected: String) {
        let error = #expect(throws: ELImageError.self) { try Y4MHeader(parsing: line, file: "bad.y4m") }
        let parts = malformed(error)
        #expect(parts?.file == "bad.y4m")
        #expect(parts != nil && parts?.frame == nil)
        #expect(parts?.reason.contains(expected) == true, "\(parts?.reason ?? "no reason")")
    }

    // MARK: Reading ffmpeg's files

    @Test(arguments: [
        FFmpegY4MCase(pixelFormat: "yuv420p", width: 64, height: 48, format: .i420, chromaFormat: .yuv420jpeg),
        FFmpegY4MCase(pixelFormat: "yuv422p", width: 64, height: 48, format: .i422, chromaFormat: .yuv422),
        FFmpegY4MCase(pixelFormat: "yuv444p", width: 64, height: 48, format: .i444, chromaFormat: .yuv444),
        FFmpegY4MCase(pixelFormat: "gray", width: 64, height: 48, format: .gray8, chromaFormat: .mono),
        FFmpegY4MCase(pixelFormat: "yuv420p", width: 33, height: 17, filters: ["scale=33:17"], format: .i420, chromaFormat: .yuv420jpeg),
        FFmpegY4MCase(pixelFormat: "yuv422p", width: 33, height: 17, filters: ["scale=33:17"], format: .i422, chromaFormat: .yuv422),
        FFmpegY4MCase(pixelFormat: "yuv444p", width: 7, height: 3, filters: ["scale=7:3"], format: .i444, chromaFormat: .yuv444),
        FFmpegY4MCase(pixelFormat: "yuv420p", width: 64, height: 48, filters: ["scale=out_range=full"],
                      format: .i420, chromaFormat: .yuv420jpeg),
        FFmpegY4MCase(pixelFormat: "yuv420p", width: 64, height: 48, rate: "30000/1001", extra: ["-color_range", "pc"],
                      format: .i420, chromaFormat: .yuv420jpeg),
        FFmpegY4MCase(pixelFormat: "yuv420p", width: 64, height: 48, extra: ["-chroma_sample_location", "left"],
                      format: .i420, chromaFormat: .yuv420mpeg2),
        FFmpegY4MCase(pixelFormat: "yuv420p", width: 64, height: 48, extra: ["-chroma_sample_location", "topleft"],
                      format: .i420, chromaFormat: .yuv420paldv),
    ])
    func readsFFmpegFilesFrameExact(source: FFmpegY4MCase) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let y4m = folder.path("in.y4m"), raw = folder.path("reference.yuv")
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=64x48:rate=\(source.rate)", "-frames:v", "5"]
                   + (source.filters.isEmpty ? [] : ["-vf", source.filters.joined(separator: ",")])
                   + ["-pix_fmt", source.pixelFormat] + source.extra + [y4m])
        try ffmpeg(["-i", y4m, "-f", "rawvideo", "-pix_fmt", source.pixelFormat, raw])
        let reference = try readBytes(raw)
        let info = try probe(y4m)

        let reader = try Y4MReader(path: y4m)
        let header = reader.header
        #expect(header.width == source.width && header.height == source.height)
        #expect("\(header.width)" == info["width"] && "\(header.height)" == info["height"])
        #expect("\(header.frameRate.numerator)/\(header.frameRate.denominator)" == info["r_frame_rate"])
        #expect(header.pixelFormat == source.format)
        #expect(header.chromaFormat == source.chromaFormat)
        let expectedRange: ColorRange = info["color_range"] == "pc" ? .full : .limited
        #expect(reader.colorSpace.range == expectedRange, "ffprobe says color_range=\(info["color_range"] ?? "?")")
        #expect(reader.colorSpace.matrix == .bt601)
        if source.format == .i420 {
            let location = ["left": ChromaLocation.left, "center": .center, "topleft": .topLeft][info["chroma_location"] ?? ""]
            #expect(reader.chromaLocation == location, "ffprobe says chroma_location=\(info["chroma_location"] ?? "?")")
        }

        let frameBytes = source.format.byteCount(width: source.width, height: source.height)
        #expect(reference.count == 5 * frameBytes)
        var count = 0
        while let frame = try reader.nextFrame() {
            #expect(frame.format == source.format && frame.width == source.width && frame.height == source.height)
            #expect(frame.timestamp == MediaTime(frame: Int64(count), framesPerSecond: Int32(header.frameRate.numerator),
                                                 Int32(header.frameRate.denominator)))
            #expect(frame.colorSpace == reader.colorSpace && frame.chromaLocation == reader.chromaLocation)
            let start = count * frameBytes
            #expect(start + frameBytes <= reference.count)
            if start + frameBytes <= reference.count {
                #expect(difference(packedBytes(frame), Array(reference[start..<start + frameBytes])) == nil, "frame \(count) differs from ffmpeg's")
            }
            count += 1
            if count > 10 { break }
        }
        #expect(count == 5)
        #expect("\(count)" == info["nb_read_frames"])
        #expect(try reader.nextFrame() == nil)
    }

    @Test func readAllAndFullRangeTagFromFFmpeg() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let y4m = folder.path("full.y4m")
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=64x48:rate=25", "-frames:v", "3",
                    "-vf", "scale=out_range=full", "-pix_fmt", "yuv420p", y4m])
        let reader = try Y4MReader(path: y4m)
        #expect(reader.header.options.contains("COLORRANGE=FULL"))
        #expect(reader.header.colorRange == .full)
        #expect(reader.colorSpace.range == .full)
        let frames = try Y4MReader.readAll(path: y4m)
        #expect(frames.count == 3)
        #expect(frames.allSatisfy { $0.colorSpace.range == .full })
    }

    @Test func colourMatrixFollowsHeight() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for (height, matrix) in [(719, ColorMatrix.bt601), (720, .bt709)] {
            let path = folder.path("h\(height).y4m")
            try write(Array("YUV4MPEG2 W2 H\(height) Cmono\nFRAME\n".utf8) + [UInt8](repeating: 9, count: 2 * height), to: path)
            let reader = try Y4MReader(path: path)
            #expect(reader.colorSpace.matrix == matrix)
            #expect(reader.colorSpace.range == .limited)
            #expect(try reader.nextFrame()?.colorSpace.matrix == matrix)
        }
    }

    // MARK: Writing files for ffmpeg

    @Test(arguments: [
        (PixelFormat.i420, 64, 48, ColorRange.limited, ChromaLocation.center),
        (.i420, 33, 17, .full, .center),
        (.i420, 33, 17, .limited, .left),
        (.i420, 32, 16, .limited, .topLeft),
        (.i422, 33, 17, .limited, .left),
        (.i444, 20, 10, .full, .center),
        (.gray8, 7, 5, .limited, .center),
    ])
    func writtenFilesDecodeInFFmpegFrameExact(format: PixelFormat, width: Int, height: Int,
                                              range: ColorRange, location: ChromaLocation) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("ours.y4m"), decoded = folder.path("decoded.yuv")
        let header = try Y4MHeader(width: width, height: height, format: format, frameRate: Y4MHeader.Ratio(30000, 1001),
                                   colorRange: range, chromaLocation: location)
        let writer = try Y4MWriter(path: path, header: header)
        var expected: [UInt8] = []
        for index in 0..<4 {
            let frame = try patternFrame(format, width: width, height: height, index: index)
            try writer.write(frame)
            expected += packedBytes(frame)
        }
        #expect(writer.framesWritten == 4)
        try writer.close()
        try writer.close()  // A second close does nothing.

        try ffmpeg(["-i", path, "-f", "rawvideo", "-pix_fmt", ffmpegName(format), decoded])
        let bytes = try readBytes(decoded)
        #expect(difference(bytes, expected) == nil, "ffmpeg decodes other bytes than we wrote")

        let info = try probe(path)
        #expect(info["width"] == "\(width)" && info["height"] == "\(height)")
        #expect(info["nb_read_frames"] == "4")
        #expect(info["r_frame_rate"] == "30000/1001")
        #expect(info["pix_fmt"] == ffmpegName(format))
        #expect(info["color_range"] == (range == .full ? "pc" : "tv"))
        if format == .i420 {
            #expect(info["chroma_location"] == ["left": "left", "center": "center", "topLeft": "topleft"][location.rawValue])
        }

        // And our reader gives the same frames and header back.
        let reader = try Y4MReader(path: path)
        #expect(reader.header == header)
        var index = 0
        while let frame = try reader.nextFrame(), index < 10 {
            #expect(difference(frame.data, Array(expected[index * header.frameByteCount..<(index + 1) * header.frameByteCount])) == nil,
                    "frame \(index)")
            index += 1
        }
        #expect(index == 4)
    }

    @Test func writerRejectsWrongFramesAndHeaders() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("w.y4m")
        let writer = try Y4MWriter(path: path, header: try Y4MHeader(width: 8, height: 6, format: .i420))
        let wrongFormat = #expect(throws: ELImageError.self) { try writer.write(try PixelBuffer(format: .i444, width: 8, height: 6)) }
        guard case .invalidInput(let what, _)? = wrongFormat else { Issue.record("expected invalidInput, got \(String(describing: wrongFormat))"); return }
        #expect(what.contains("8x6 i444") && what.contains("frame 0"))
        #expect(throws: ELImageError.self) { try writer.write(try PixelBuffer(format: .i420, width: 8, height: 4)) }
        try writer.write(try PixelBuffer(format: .i420, width: 8, height: 6))
        try writer.close()
        let afterClose = #expect(throws: ELImageError.self) { try writer.write(try PixelBuffer(format: .i420, width: 8, height: 6)) }
        guard case .invalidState? = afterClose else { Issue.record("expected invalidState, got \(String(describing: afterClose))"); return }
        #expect(try Y4MReader.readAll(path: path).count == 1)

        var badHeader = try Y4MHeader(width: 8, height: 6, format: .i420)
        badHeader.width = 0
        #expect(throws: ELImageError.self) { try Y4MWriter(path: folder.path("bad.y4m"), header: badHeader) }
        badHeader.width = 8
        badHeader.options.append("HAS SPACE")
        #expect(throws: ELImageError.self) { try Y4MWriter(path: folder.path("bad.y4m"), header: badHeader) }
        #expect(!FileManager.default.fileExists(atPath: folder.path("bad.y4m")))
    }

    @Test func writerReportsIOErrors() throws {
        let header = try Y4MHeader(width: 64, height: 48, format: .i420)
        let missingFolder = "/nonexistent-\(UUID().uuidString)/out.y4m"
        let createError = #expect(throws: ELImageError.self) { try Y4MWriter(path: missingFolder, header: header) }
        #expect(ioFailure(createError)?.file == missingFolder)
        #expect(ioFailure(createError)?.errno == ENOENT)
    }

    /// /dev/full accepts the open and fails every write with ENOSPC: a full disk on demand.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full"), "this machine has no /dev/full to stand in for a full disk"))
    func writerReportsAFullDisk() throws {
        let header = try Y4MHeader(width: 64, height: 48, format: .i420)
        let writer = try Y4MWriter(path: "/dev/full", header: header)
        let writeError = #expect(throws: ELImageError.self) { try writer.write(try PixelBuffer(format: .i420, width: 64, height: 48)) }
        let failure = ioFailure(writeError)
        #expect(failure?.file == "/dev/full")
        #expect(failure?.errno == ENOSPC)
        #expect(failure?.operation.contains("frame 0") == true)
        #expect(writeError?.description.contains("No space left on device") == true, "\(writeError?.description ?? "")")

        // A buffered header that cannot be flushed fails close().
        let empty = try Y4MWriter(path: "/dev/full", header: header)
        let closeError = #expect(throws: ELImageError.self) { try empty.close() }
        #expect(ioFailure(closeError)?.errno == ENOSPC)
        #expect(ioFailure(closeError)?.operation.contains("after 0 frames") == true)
    }

    // MARK: Damaged files

    /// A valid 64x48 4:2:0 file from ffmpeg and the header length.
    private func ffmpegFile(in folder: TemporaryFolder, frames: Int = 5) throws -> (bytes: [UInt8], headerLength: Int, frameBytes: Int) {
        let path = folder.path("source.y4m")
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=64x48:rate=25", "-frames:v", "\(frames)", "-pix_fmt", "yuv420p", path])
        let bytes = try readBytes(path)
        let headerLength = try #require(bytes.firstIndex(of: 0x0A)) + 1
        return (bytes, headerLength, 64 * 48 * 3 / 2)
    }

    /// Reads `path` until it throws; returns the frames read and the error.
    private func readUntilError(_ path: String, cap: Int = 20) throws -> (frames: [PixelBuffer], error: ELImageError?) {
        let reader = try Y4MReader(path: path)
        var frames: [PixelBuffer] = []
        do {
            while let frame = try reader.nextFrame(), frames.count < cap { frames.append(frame) }
            return (frames, nil)
        } catch let error as ELImageError {
            // It keeps failing the same way.
            #expect(throws: error) { try reader.nextFrame() }
            return (frames, error)
        }
    }

    @Test func truncatedLastFrameFailsAfterTheGoodFrames() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = try ffmpegFile(in: folder)
        let path = folder.path("cut.y4m")
        try write(Array(source.bytes.dropLast(10)), to: path)
        let (frames, error) = try readUntilError(path)
        #expect(frames.count == 4)
        for (index, frame) in frames.enumerated() {
            let start = source.headerLength + index * (6 + source.frameBytes) + 6
            #expect(difference(frame.data, Array(source.bytes[start..<start + source.frameBytes])) == nil, "frame \(index)")
        }
        let parts = try #require(malformed(error))
        #expect(parts.file == path)
        #expect(parts.frame == 4)
        #expect(parts.reason.contains("\(source.frameBytes - 10) of its \(source.frameBytes) bytes"), "\(parts.reason)")
    }

    /// What follows two good frames, and what the error for frame 2 must say.
    static let damagedTails: [(tail: String, expected: String)] = [
        ("FRA", "ends inside the frame's FRAME line"),
        ("FRAME", "ends inside the frame's FRAME line"),
        ("FRAME\n", "0 of its 4608 bytes"),
        ("FRAME\n\u{1}\u{2}\u{3}", "3 of its 4608 bytes"),
        ("FRAMX\n", "expected a 'FRAME' line"),
        ("FRAMES\n", "expected a 'FRAME' line"),
        ("\nFRAME\n", "expected a 'FRAME' line"),
        ("FRAME " + String(repeating: "A", count: 5000), "longer than 4096"),
    ]

    @Test(arguments: damagedTails)
    func damagedThirdFrame(tail: String, expected: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = try ffmpegFile(in: folder, frames: 2)
        let path = folder.path("damaged.y4m")
        try write(source.bytes + Array(tail.utf8), to: path)
        let (frames, error) = try readUntilError(path)
        #expect(frames.count == 2)
        let parts = try #require(malformed(error))
        #expect(parts.frame == 2)
        #expect(parts.reason.contains(expected), "\(parts.reason)")
    }

    @Test func garbledMarkerInTheMiddle() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = try ffmpegFile(in: folder)
        var bytes = source.bytes
        bytes[source.headerLength + 2 * (6 + source.frameBytes) + 4] = UInt8(ascii: "X")
        let path = folder.path("garbled.y4m")
        try write(bytes, to: path)
        let (frames, error) = try readUntilError(path)
        #expect(frames.count == 2)
        let parts = try #require(malformed(error))
        #expect(parts.frame == 2)
        #expect(parts.reason.contains("found 'FRAMX'"), "\(parts.reason)")

        // One byte too many in frame 0 shifts frame 1's marker.
        var shifted = source.bytes
        shifted.insert(0x80, at: source.headerLength + 6 + 100)
        try write(shifted, to: path)
        let (shiftedFrames, shiftedError) = try readUntilError(path)
        #expect(shiftedFrames.count == 1)
        #expect(malformed(shiftedError)?.frame == 1)
    }

    @Test func frameParametersAreAccepted() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("params.y4m")
        try write(Array("YUV4MPEG2 W3 H3 F1:1 Im C420\nFRAME Itpf XFOO=1\n".utf8) + [UInt8](0..<17)
                  + Array("FRAME\n".utf8) + [UInt8](17..<34), to: path)
        let frames = try Y4MReader.readAll(path: path)
        #expect(frames.count == 2)
        #expect(frames.first?.data == [UInt8](0..<17))
        #expect(frames.last?.data == [UInt8](17..<34))
        #expect(frames.last?.timestamp == MediaTime(value: 1, timescale: 1))
    }

    @Test func oddSizesRoundChromaUp() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("one.y4m")
        // 1x1 4:2:0: one luma and one sample of each chroma plane.
        try write(Array("YUV4MPEG2 W1 H1\nFRAME\n".utf8) + [10, 20, 30], to: path)
        let frames = try Y4MReader.readAll(path: path)
        #expect(frames.count == 1)
        #expect(frames.first?.data == [10, 20, 30])
        let chroma = try #require(frames.first?.shape(ofPlane: 1))
        #expect(chroma.width == 1 && chroma.height == 1)
    }

    @Test(arguments: [
        ("YUV4MPEG2 W0 H48 F25:1 C420jpeg\n", "'W0'"),
        ("YUV4MPEG2 W64 H0 F25:1 C420jpeg\n", "'H0'"),
        ("YUV4MPEG2 W16385 H48 F25:1 C420jpeg\n", "at most 16384"),
        ("YUV4MPEG2 W64 F25:1 C420jpeg\n", "no H (height)"),
        ("YUV4MPEG2 W64 H48 F25:1 C420p12\n", "is a 12-bit format"),
        ("YUV4MPEG2 W64 H48 F25:0\n", "F (frame rate)"),
        ("YUV4MPEG2 W64 H48 F25:1", "ends inside its header line"),
        ("YUV4MPEG2 X" + String(repeating: "a", count: 5000) + "\n", "longer than 4096"),
        ("\u{89}PNG\r\n\u{1A}\n", "not a YUV4MPEG2 file"),
        ("YUV4MPEG W64 H48\n", "not a YUV4MPEG2 file"),
        ("YUV4MPEG2X W64 H48\n", "must start with 'YUV4MPEG2'"),
        ("", "the file is empty"),
    ])
    func badHeaderInAFile(text: String, expected: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("bad.y4m")
        // A frame follows each header line; a file that ends inside its header has nothing after.
        let body = text.hasSuffix("\n") ? Array("FRAME\n".utf8) + [UInt8](repeating: 0, count: 100) : []
        try write(Array(text.utf8) + body, to: path)
        let error = #expect(throws: ELImageError.self) { try Y4MReader(path: path) }
        let parts = try #require(malformed(error))
        #expect(parts.file == path)
        #expect(parts.frame == nil)
        #expect(parts.reason.contains(expected), "\(parts.reason)")
    }

    @Test func headerLinesUpTo4096BytesAreAccepted() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("long.y4m")
        let start = "YUV4MPEG2 W2 H2 Cmono X"
        for (length, accepted) in [(4096, true), (4097, false)] {
            let line = start + String(repeating: "a", count: length - start.utf8.count)
            try write(Array((line + "\nFRAME\n").utf8) + [1, 2, 3, 4], to: path)
            if accepted {
                let frames = try Y4MReader.readAll(path: path)
                #expect(frames.count == 1 && frames.first?.data == [1, 2, 3, 4])
            } else {
                let error = #expect(throws: ELImageError.self) { try Y4MReader(path: path) }
                #expect(malformed(error)?.reason.contains("longer than 4096") == true)
            }
        }
    }

    @Test func missingFileAndFolder() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let missing = folder.path("missing.y4m")
        let error = #expect(throws: ELImageError.self) { try Y4MReader(path: missing) }
        #expect(ioFailure(error)?.file == missing)
        #expect(ioFailure(error)?.errno == ENOENT)
        #expect(error?.description.contains(missing) == true)
        let folderError = #expect(throws: ELImageError.self) { try Y4MReader(path: folder.url.path) }
        #expect(ioFailure(folderError)?.errno == EISDIR)
        let rawError = #expect(throws: ELImageError.self) {
            try RawYUVReader(path: missing, width: 4, height: 4, format: .i420, frameRate: 25)
        }
        #expect(ioFailure(rawError)?.errno == ENOENT)
    }

    // MARK: Raw files

    @Test(arguments: [("yuv420p", PixelFormat.i420), ("yuv422p", .i422), ("gray", .gray8)])
    func rawReaderMatchesY4MOfTheSameSource(pixelFormat: String, format: PixelFormat) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let raw = folder.path("clip.yuv"), y4m = folder.path("clip.y4m")
        let input = ["-f", "lavfi", "-i", "testsrc2=size=64x48:rate=30000/1001", "-frames:v", "5",
                     "-vf", "scale=33:17", "-pix_fmt", pixelFormat]
        try ffmpeg(input + ["-f", "rawvideo", raw])
        try ffmpeg(input + [y4m])
        let expected = try Y4MReader.readAll(path: y4m)
        #expect(expected.count == 5)
        let reader = try RawYUVReader(path: raw, width: 33, height: 17, format: format, frameRate: Y4MHeader.Ratio(30000, 1001))
        #expect(reader.colorSpace == .bt601)
        var index = 0
        while let frame = try reader.nextFrame(), index < 10 {
            #expect(index < expected.count && difference(frame.data, expected[index].data) == nil, "frame \(index)")
            #expect(frame.timestamp == MediaTime(frame: Int64(index), framesPerSecond: 30000, 1001))
            index += 1
        }
        #expect(index == 5)
    }

    @Test func rawReaderReadsPackedFormats() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("clip.rgb")
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=16x8:rate=25", "-frames:v", "3",
                    "-pix_fmt", "rgb24", "-f", "rawvideo", path])
        let bytes = try readBytes(path)
        let frames = try RawYUVReader.readAll(path: path, width: 16, height: 8, format: .rgb24, frameRate: 25)
        #expect(frames.count == 3)
        #expect(difference(frames.flatMap(\.data), bytes) == nil)
        #expect(frames.map(\.timestamp.seconds) == [0, 0.04, 0.08])
    }

    @Test func rawReaderTruncatedLastFrame() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("cut.yuv")
        let frameBytes = PixelFormat.i420.byteCount(width: 33, height: 17)
        let bytes = [UInt8]((0..<(4 * frameBytes - 7)).map { UInt8(truncatingIfNeeded: $0) })
        try write(bytes, to: path)
        let reader = try RawYUVReader(path: path, width: 33, height: 17, format: .i420, frameRate: 25)
        for index in 0..<3 {
            let frame = try #require(try reader.nextFrame())
            #expect(difference(frame.data, Array(bytes[index * frameBytes..<(index + 1) * frameBytes])) == nil, "frame \(index)")
        }
        let error = #expect(throws: ELImageError.self) { try reader.nextFrame() }
        let parts = try #require(malformed(error))
        #expect(parts.file == path && parts.frame == 3)
        #expect(parts.reason.contains("\(frameBytes - 7) of its \(frameBytes) bytes"), "\(parts.reason)")
        #expect(throws: try #require(error)) { try reader.nextFrame() }
    }

    @Test func rawReaderRejectsBadArgumentsAndReadsEmptyFiles() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("empty.yuv")
        try write([], to: path)
        #expect(try RawYUVReader.readAll(path: path, width: 4, height: 4, format: .i420, frameRate: 25).isEmpty)
        for (width, height, rate) in [(0, 4, Y4MHeader.Ratio(25, 1)), (4, 16385, 25), (4, 4, 0), (4, 4, Y4MHeader.Ratio(25, 0))] {
            let error = #expect(throws: ELImageError.self) {
                try RawYUVReader(path: path, width: width, height: height, format: .i420, frameRate: rate)
            }
            guard case .invalidInput? = error else { Issue.record("expected invalidInput, got \(String(describing: error))"); continue }
        }
    }
}

// MARK: - Helpers

private extension Y4MTests {
    /// Runs ffmpeg quietly, overwriting outputs.
    func ffmpeg(_ arguments: [String]) throws {
        try runTool("ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-y"] + arguments)
    }

    /// ffprobe's view of the first video stream: `key=value` for the given entries, frames counted.
    func probe(_ path: String) throws -> [String: String] {
        let output = try runTool("ffprobe", [
            "-v", "error", "-count_frames", "-select_streams", "v:0",
            "-show_entries", "stream=width,height,pix_fmt,color_range,chroma_location,r_frame_rate,nb_read_frames",
            "-of", "default=noprint_wrappers=1", path,
        ])
        var fields: [String: String] = [:]
        for line in String(decoding: output, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        return fields
    }

    /// ffmpeg's `-pix_fmt` name for a format Y4M can hold.
    func ffmpegName(_ format: PixelFormat) -> String {
        switch format {
        case .i420: "yuv420p"
        case .i422: "yuv422p"
        case .i444: "yuv444p"
        case .gray8: "gray"
        default: "unsupported"
        }
    }

    /// Nil when `actual` and `expected` are equal, else where they first differ (short enough
    /// to read, unlike the arrays themselves).
    func difference(_ actual: [UInt8], _ expected: [UInt8]) -> String? {
        if let index = (0..<min(actual.count, expected.count)).first(where: { actual[$0] != expected[$0] }) {
            return "byte \(index) is \(actual[index]), expected \(expected[index]) (\(actual.count) and \(expected.count) bytes)"
        }
        return actual.count == expected.count ? nil : "\(actual.count) bytes, expected \(expected.count)"
    }

    /// The planes of `buffer`, rows without padding, one after another.
    func packedBytes(_ buffer: PixelBuffer) -> [UInt8] {
        var bytes: [UInt8] = []
        for (index, plane) in buffer.planes.enumerated() {
            let shape = buffer.shape(ofPlane: index)
            for row in 0..<shape.height {
                let start = plane.offset + row * plane.bytesPerRow
                bytes += buffer.data[start..<start + shape.rowBytes]
            }
        }
        return bytes
    }

    /// A frame with a pattern that differs per frame, plane, row and column, stored with padded
    /// rows (stride = row + 3) after a 5-byte gap, the padding filled with 0xEE.
    func patternFrame(_ format: PixelFormat, width: Int, height: Int, index: Int) throws -> PixelBuffer {
        var data = [UInt8](repeating: 0xEE, count: 5)
        var planes: [PixelBuffer.Plane] = []
        for plane in 0..<format.planeCount {
            let shape = format.planeShape(plane, width: width, height: height)
            let stride = shape.rowBytes + 3
            planes.append(PixelBuffer.Plane(offset: data.count, bytesPerRow: stride))
            for y in 0..<shape.height {
                for x in 0..<stride {
                    data.append(x < shape.rowBytes ? UInt8(truncatingIfNeeded: x * 7 + y * 13 + index * 29 + plane * 71) : 0xEE)
                }
            }
        }
        return try PixelBuffer(format: format, width: width, height: height, data: data, planes: planes)
    }

    /// The parts of a `.malformedMedia` error, or nil for another error.
    func malformed(_ error: ELImageError?) -> (file: String, frame: Int?, reason: String)? {
        guard case let .malformedMedia(file, frame, reason)? = error else { return nil }
        return (file, frame, reason)
    }

    /// The file name and errno of an `.io` error, or nil for another error.
    func ioFailure(_ error: ELImageError?) -> (file: String, operation: String, errno: Int32)? {
        guard case let .io(file, operation, code, _)? = error else { return nil }
        return (file, operation, code)
    }

    func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    func readBytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
