import ELImage
import ELImageDetection
import ELImageMedia
import ELImageTestSupport
import Foundation
import Testing

/// `MotionDetector`: events that start with the first frame that moves, go on while it moves and
/// through the hold time, and end; sensor noise on a still scene is no motion; a real clip moves.
@Suite("Motion detection", .closesContexts)
struct MotionDetectionTests {
    static let (width, height) = (320, 180)

    /// A textured still scene (a diagonal ramp with fine stripes) with per-frame noise of up to
    /// `noise` levels, and a white 40×40 square at `square` when given.
    static func scene(noise: Int, square: (x: Int, y: Int)?, seed: UInt64) -> RGBAImage {
        var random = SeededGenerator(seed: seed)
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                var value = 40 + (x + y) / 4 + ((x / 3) % 2) * 20
                if let square, (square.x..<square.x + 40).contains(x), (square.y..<square.y + 40).contains(y) { value = 240 }
                value += Int(random.next() % UInt64(2 * noise + 1)) - noise
                let level = UInt8(clamping: value)
                let offset = (y * width + x) * 4
                (pixels[offset], pixels[offset + 1], pixels[offset + 2]) = (level, level, level)
            }
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    @Test("a square that moves from frame 20 to 39: an event from 20, through the hold time, ending at 49; none before or after")
    func movingSquare() async throws {
        let detector = try MotionDetector(settings: .init(holdTime: .milliseconds(400)))
        let frames = (0..<70).map { index in
            let square: (x: Int, y: Int)? = index < 20 ? nil : (20 + 6 * min(index, 39) - 120, 70)
            return Self.scene(noise: 6, square: square, seed: UInt64(index))
        }
        let found = try await detect(frames, with: detector)
        #expect(found.count == 70)
        let events = found.enumerated().compactMap { index, metadata in metadata.motion.map { (index, $0) } }
        #expect(events.map(\.0) == Array(20...49), "motion at frames \(events.map(\.0))")
        #expect(events.first?.1.event == .start)
        #expect(events.dropFirst().dropLast().allSatisfy { $0.1.event == .ongoing })
        #expect(events.last?.1.event == .end)
        // While it moves: the strips the square left and entered, about 2 × 6 × 40 pixels of the
        // frame (0.8 %), inside a box around the square.
        for (index, motion) in events where (21...39).contains(index) {
            let x = Double(20 + 6 * index - 120)
            #expect(motion.area > 0.005 && motion.area < 0.03, "frame \(index): area \(motion.area)")
            #expect(motion.pixelBounds.minX >= x - 12 && motion.pixelBounds.maxX <= x + 52, "frame \(index): \(motion.pixelBounds)")
            #expect(motion.pixelBounds.minY >= 60 && motion.pixelBounds.maxY <= 120, "frame \(index): \(motion.pixelBounds)")
        }
        // Still, within the hold: nothing changed.
        #expect(events.filter { (40...48).contains($0.0) }.allSatisfy { $0.1.area < 0.005 })
        let line = try #require(found[20].jsonLines.first)
        #expect(line.hasPrefix("{\"frame\":20,\"time\":0.8,\"type\":\"motion\",\"event\":\"start\",\"area\":"), "\(line)")
    }

    @Test("sensor noise on a still scene is no motion, at the default threshold")
    func stillNoise() async throws {
        let frames = (0..<40).map { Self.scene(noise: 10, square: nil, seed: UInt64(1000 + $0)) }
        let found = try await detect(frames, with: try MotionDetector())
        #expect(found.count == 40)
        #expect(found.allSatisfy { $0.motion == nil }, "motion in \(found.filter { $0.motion != nil }.map(\.frame))")
    }

    @Test("the bundled movie moves: an event starts within its first frames")
    func realClip() async throws {
        let frames = try EncoderFixtures.bunnyFrames(30)
        let found = try await detect(frames, with: try MotionDetector())
        let first = found.firstIndex { $0.motion?.event == .start }
        #expect(first.map { $0 <= 5 } == true, "the first motion event starts at frame \(first ?? -1)")
    }

    @Test("settings that cannot work are refused, naming the range")
    func refusals() {
        #expect { try MotionDetector(settings: .init(threshold: 0)) } throws: {
            "\($0)".contains("motion threshold 0") && "\($0)".contains("1...255")
        }
        #expect { try MotionDetector(settings: .init(minimumArea: 0)) } throws: {
            "\($0)".contains("motion area 0") && "\($0)".contains("(0, 1]")
        }
        #expect { try MotionDetector(settings: .init(holdTime: .seconds(-1))) } throws: {
            "\($0)".contains("motion hold time -1") && "\($0)".contains("zero or more seconds")
        }
    }
}
