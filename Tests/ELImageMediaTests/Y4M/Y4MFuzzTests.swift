import ELImage
@testable import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

// Damaged and random Y4M input: the readers must return frames or throw ELImageError, never
// crash, hang or return frames that are not there. Seeded, so a failure reproduces; each
// failure names its iteration and input.

@Suite("Y4M fuzzing", .closesContexts)
struct Y4MFuzzTests {
    /// Iterations per test; with the frame cap below they finish in a few seconds.
    static let iterations = 1500
    /// The most frames read from one input.
    static let frameCap = 8

    @Test func mutatedFilesReadOrThrowELImageError() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("fuzz.y4m")
        let (base, headerLength) = Self.validFile()
        var generator = SeededGenerator(seed: 0x5934_4D5F_4655_5A5A)
        var framesDelivered = 0, errors = 0, clean = 0
        let started = ContinuousClock.now

        for iteration in 0..<Self.iterations {
            var bytes = base
            let rounds = Int.random(in: 1...2, using: &generator)
            for _ in 0..<rounds { Self.mutate(&bytes, headerLength: headerLength, using: &generator) }
            try Data(bytes).write(to: URL(fileURLWithPath: path))

            let context = "iteration \(iteration), input starts \(Self.printable(bytes.prefix(120)))"
            do {
                let reader = try Y4MReader(path: path)
                let header = reader.header
                let frameBytes = header.frameByteCount
                var frames = 0
                while frames < Self.frameCap, let frame = try reader.nextFrame() {
                    if frame.data.count != frameBytes || frame.width != header.width || frame.height != header.height {
                        Issue.record("frame \(frames) has \(frame.data.count) bytes, \(frame.width)x\(frame.height), header says \(header.line); \(context)")
                    }
                    frames += 1
                }
                // Every frame needs its bytes and a 6-byte FRAME line in the file.
                if frames * (frameBytes + 6) > bytes.count {
                    Issue.record("\(frames) frames of \(frameBytes) bytes from a \(bytes.count)-byte file; \(context)")
                }
                if (try? Y4MHeader(parsing: header.line, file: path)) != header {
                    Issue.record("header \(header.line) does not survive a round trip; \(context)")
                }
                framesDelivered += frames
                clean += 1
            } catch let error as ELImageError {
                errors += 1
                guard case let .malformedMedia(file, _, reason) = error, file == path, !reason.isEmpty else {
                    Issue.record("unexpected error \(error); \(context)")
                    continue
                }
            } catch {
                Issue.record("not an ELImageError: \(error); \(context)")
            }
        }
        let elapsed = ContinuousClock.now - started
        // Both outcomes must have been exercised, or the mutations are too weak or too strong.
        #expect(clean > 50, "only \(clean) inputs read cleanly")
        #expect(errors > 50, "only \(errors) inputs failed")
        #expect(framesDelivered > 0)
        #expect(elapsed < .seconds(30), "fuzzing took \(elapsed)")
    }

    @Test func randomHeaderLinesParseOrThrow() {
        var generator = SeededGenerator(seed: 0x4845_4144_4552_5321)
        var parsed = 0, rejected = 0
        for iteration in 0..<Self.iterations {
            let line = Self.randomHeaderLine(using: &generator)
            do {
                let header = try Y4MHeader(parsing: line, file: "random.y4m")
                parsed += 1
                let limit = Y4MHeader.maximumDimension
                if !(1...limit).contains(header.width) || !(1...limit).contains(header.height)
                    || header.frameRate.numerator <= 0 || header.frameRate.denominator <= 0 {
                    Issue.record("iteration \(iteration): accepted \(Self.printable(Array(line.utf8))) as \(header.line)")
                }
                if (try? Y4MHeader(parsing: header.line, file: "random.y4m")) != header {
                    Issue.record("iteration \(iteration): \(header.line) does not survive a round trip")
                }
            } catch let error as ELImageError {
                rejected += 1
                guard case let .malformedMedia(file, frame, reason) = error, file == "random.y4m", frame == nil, !reason.isEmpty else {
                    Issue.record("iteration \(iteration): unexpected error \(error)")
                    continue
                }
            } catch {
                Issue.record("iteration \(iteration): not an ELImageError: \(error)")
            }
        }
        #expect(parsed > 50, "only \(parsed) random headers parsed")
        #expect(rejected > 50, "only \(rejected) random headers were rejected")
    }

    @Test func truncatedRawFilesReadOrThrow() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("fuzz.yuv")
        var generator = SeededGenerator(seed: 0x5241_5759_5556_0001)
        let formats: [PixelFormat] = [.i420, .i422, .i444, .gray8, .nv12, .yuyv, .rgb24, .rgba]
        for iteration in 0..<300 {
            let format = formats[Int.random(in: 0..<formats.count, using: &generator)]
            let width = Int.random(in: 1...17, using: &generator), height = Int.random(in: 1...9, using: &generator)
            let frameBytes = format.byteCount(width: width, height: height)
            let length = Int.random(in: 0...(4 * frameBytes), using: &generator)
            try Data(randomBytes(length, seed: UInt64(iteration))).write(to: URL(fileURLWithPath: path))
            let context = "iteration \(iteration): \(width)x\(height) \(format), \(length) bytes"
            let reader = try RawYUVReader(path: path, width: width, height: height, format: format, frameRate: 25)
            var frames = 0
            do {
                while frames < Self.frameCap, try reader.nextFrame() != nil { frames += 1 }
                if length % frameBytes != 0 { Issue.record("a cut frame was not reported; \(context)") }
            } catch let error as ELImageError {
                guard case let .malformedMedia(file, frame, _) = error, file == path, frame == length / frameBytes else {
                    Issue.record("unexpected error \(error); \(context)")
                    continue
                }
            }
            if frames != length / frameBytes { Issue.record("\(frames) frames; \(context)") }
        }
    }
}

// MARK: - Inputs

private extension Y4MFuzzTests {
    /// A valid 8x6 4:2:0 file of three frames, and the length of its header line.
    static func validFile() -> (bytes: [UInt8], headerLength: Int) {
        let header = Array("YUV4MPEG2 W8 H6 F25:1 Ip A1:1 C420jpeg XCOLORRANGE=LIMITED\n".utf8)
        var bytes = header
        for frame in 0..<3 {
            bytes += Array("FRAME\n".utf8)
            bytes += (0..<72).map { UInt8(truncatingIfNeeded: $0 * 3 + frame * 40) }
        }
        return (bytes, header.count)
    }

    /// One random change: bytes flipped, inserted or deleted in the header, the file cut,
    /// a body byte changed, or the header replaced by a random one.
    static func mutate(_ bytes: inout [UInt8], headerLength: Int, using generator: inout SeededGenerator) {
        let headerEnd = min(headerLength, bytes.count)
        switch Int.random(in: 0..<7, using: &generator) {
        case 0 where headerEnd > 0:
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let index = Int.random(in: 0..<headerEnd, using: &generator)
                bytes[index] ^= UInt8(1) << UInt8.random(in: 0...7, using: &generator)
            }
        case 1:
            let index = Int.random(in: 0...headerEnd, using: &generator)
            let inserted = (0..<Int.random(in: 1...4, using: &generator)).map { _ in interestingByte(using: &generator) }
            bytes.insert(contentsOf: inserted, at: index)
        case 2 where headerEnd > 0:
            let index = Int.random(in: 0..<headerEnd, using: &generator)
            let count = min(Int.random(in: 1...4, using: &generator), bytes.count - index)
            bytes.removeSubrange(index..<index + count)
        case 3:
            bytes.removeLast(Int.random(in: 0...bytes.count, using: &generator))
        case 4 where bytes.count > headerEnd:
            let index = Int.random(in: headerEnd..<bytes.count, using: &generator)
            bytes[index] = interestingByte(using: &generator)
        case 5:
            bytes.replaceSubrange(0..<headerEnd, with: Array((randomHeaderLine(using: &generator) + "\n").utf8))
        default:
            // Random garbage of random length after a valid header.
            bytes.removeSubrange(min(headerEnd, bytes.count)..<bytes.count)
            bytes += (0..<Int.random(in: 0...300, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        }
    }

    /// A byte that often matters to the parser, or any byte.
    static func interestingByte(using generator: inout SeededGenerator) -> UInt8 {
        let interesting = Array("0123456789:WHFIACX FRAME\n-?".utf8) + [0, 0x80, 0xFF]
        return Bool.random(using: &generator)
            ? interesting[Int.random(in: 0..<interesting.count, using: &generator)]
            : UInt8.random(in: 0...255, using: &generator)
    }

    /// A header line of random tags and values, valid often enough to get past the header.
    static func randomHeaderLine(using generator: inout SeededGenerator) -> String {
        let tags = ["W", "H", "F", "I", "A", "C", "X", "Z", "w", ""]
        let values = ["8", "6", "1", "0", "-1", "16384", "16385", "99999999999999999999999", "", "25:1", "0:0",
                      "1:0", ":", "30000:1001", "4294967296:1", "420jpeg", "420", "420p10", "mono", "mono16",
                      "444", "422", "411", "p", "t", "?", "x", "COLORRANGE=FULL", "COLORRANGE=", "abc", "é", "\u{FFFD}",
                      "\t", "\r"]
        func pick<T>(_ list: [T]) -> T { list[Int.random(in: 0..<list.count, using: &generator)] }
        var tokens: [String] = [Int.random(in: 0..<10, using: &generator) == 0 ? pick(["YUV4MPEG", "yuv4mpeg2", "", "YUV4MPEG2X"]) : "YUV4MPEG2"]
        // Usually give a valid size, so that the other fields get exercised.
        if Int.random(in: 0..<4, using: &generator) != 0 { tokens += ["W\(Int.random(in: 1...40, using: &generator))", "H\(Int.random(in: 1...40, using: &generator))"] }
        for _ in 0..<Int.random(in: 0...7, using: &generator) {
            tokens.append(pick(tags) + pick(values))
        }
        return tokens.joined(separator: Bool.random(using: &generator) ? " " : pick(["  ", " ", "\t"]))
    }

    static func printable(_ bytes: some Collection<UInt8>) -> String {
        "\"" + bytes.map { $0 >= 0x20 && $0 < 0x7F ? String(UnicodeScalar($0)) : "\\x" + String($0, radix: 16) }.joined() + "\""
    }
}
