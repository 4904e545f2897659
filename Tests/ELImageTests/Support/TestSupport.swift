import ELImage
import ELImageTesting
import Foundation

/// Collects what a sink or callback receives, for assertions after the graph ran; a test can wait
/// for a count.
final class Collector<Value: Sendable>: Sendable {
    private let storage = Waitable<[Value]>([])
    func append(_ value: Value) { storage.update { $0.append(value) } }
    var values: [Value] { storage.value }
    var count: Int { values.count }

    /// Waits until `count` values in all came; false when `timeout` passed first.
    func waitForCount(_ count: Int, timeout: Duration = Waitable<Int>.defaultTimeout) async -> Bool {
        await storage.wait(timeout: timeout) { $0.count >= count }
    }
}

/// Polls `condition` until it holds; false when `timeout` passed first. Only for framework states
/// that announce no event (a camera's statistics and capture state, a snapshot's pending requests);
/// wait on the event itself wherever there is one (`FrameCollector`, `Collector`, `FailureRecorder`,
/// `Gate`, `ManualClock`, an emulated device's counters).
@discardableResult
func waitUntil(timeout: Duration = .seconds(60), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}

/// A sink that records every image it reads back, on the render thread as each frame arrives
/// (ELImageTesting's `FrameCollector`), so a test reads the images as soon as a frame is processed.
/// `RawDataOutput` reads back on a worker thread instead: RawDataOutputTests cover it.
func imageCollector() -> (FrameCollector, FrameCollector) {
    let collector = FrameCollector()
    return (collector, collector)
}

extension FrameCollector {
    /// The frames so far (`received`).
    var values: [RGBAImage] { received }
}

/// A deterministic pseudo-random generator (SplitMix64), so failures reproduce.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random bytes from a fixed seed.
func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var generator = SeededGenerator(seed: seed)
    return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
}

/// Paths inside the repository.
enum Repository {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }
}

/// Runs a command line tool and returns its standard output; throws with its standard error.
@discardableResult
func runTool(_ tool: String, _ arguments: [String]) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [tool] + arguments
    // Standard error goes to a file, so a chatty tool cannot block on a full pipe while we read stdout.
    let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("elimage-stderr-\(UUID().uuidString)")
    guard FileManager.default.createFile(atPath: errorFile.path, contents: nil) else {
        throw ToolFailure(tool: tool, status: -1, message: "cannot create \(errorFile.path)")
    }
    defer { try? FileManager.default.removeItem(at: errorFile) }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = try FileHandle(forWritingTo: errorFile)
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let errorData = (try? Data(contentsOf: errorFile)) ?? Data()
    guard process.terminationStatus == 0 else {
        throw ToolFailure(tool: tool, status: process.terminationStatus,
                          message: String(decoding: errorData, as: UTF8.self))
    }
    return data
}

struct ToolFailure: Error, CustomStringConvertible {
    let tool: String
    let status: Int32
    let message: String
    var description: String { "\(tool) exited \(status): \(message)" }
}

/// A fresh temporary folder, removed by `remove()`.
struct TemporaryFolder {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("elimage-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    func remove() { try? FileManager.default.removeItem(at: url) }
}
