import ELImage
import ELImageTesting
import Foundation

/// Collects what a sink or callback receives, for assertions after the graph ran; a test can wait
/// for a count.
package final class Collector<Value: Sendable>: Sendable {
    private let storage = Waitable<[Value]>([])
    package init() {}
    package func append(_ value: Value) { storage.update { $0.append(value) } }
    package var values: [Value] { storage.value }
    package var count: Int { values.count }

    /// Waits until `count` values in all came; false when `timeout` passed first.
    package func waitForCount(_ count: Int, timeout: Duration = Waitable<Int>.defaultTimeout) async -> Bool {
        await storage.wait(timeout: timeout) { $0.count >= count }
    }
}

/// `node`'s messages of type `Message` on `context`'s event stream (`RenderEvent.message`), as the
/// stream brings them: subscribed when made, so make it before the node runs.
package final class MessageCollector<Message: NodeMessage>: Sendable {
    private let messages: Waitable<[Message]>
    private let reading: Task<Void, Never>

    package init(of node: AnyObject, on context: RenderContext) {
        let events = context.events(capacity: 4096)
        let reference = NodeReference(node)
        let messages = Waitable<[Message]>([])
        self.messages = messages
        reading = Task {
            for await event in events where event.node == reference {
                if let message = event.message(Message.self) { messages.update { $0.append(message) } }
            }
        }
    }

    deinit { reading.cancel() }

    /// The messages so far.
    package var values: [Message] { messages.value }

    /// Waits until the messages so far satisfy `condition`; false when `timeout` passed first.
    package func wait(timeout: Duration = Waitable<Int>.defaultTimeout,
                      until condition: @escaping @Sendable ([Message]) -> Bool) async -> Bool {
        await messages.wait(timeout: timeout, until: condition)
    }

    /// Every message, once the context has closed (its event stream ended).
    package func all() async -> [Message] {
        await reading.value
        return messages.value
    }
}

/// Polls `condition` until it holds; false when `timeout` passed first. Only for framework states
/// that announce no event (a camera's statistics and capture state, a snapshot's pending requests);
/// wait on the event itself wherever there is one (`FrameCollector`, `Collector`, `FailureRecorder`,
/// `Gate`, `ManualClock`, an emulated device's counters).
@discardableResult
package func waitUntil(timeout: Duration = .seconds(60), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}

/// The elements of `sequence` once it has ended, or nil when it did not end within `timeout`: a
/// sequence that never ends fails the test instead of hanging it.
package func elementsUntilEnd<Elements: AsyncSequence & Sendable>(
    of sequence: Elements, timeout: Duration = .seconds(60)
) async -> [Elements.Element]? where Elements.Element: Sendable, Elements.Failure == Never {
    await withTaskGroup(of: [Elements.Element]?.self) { group in
        group.addTask { await sequence.reduce(into: []) { $0.append($1) } }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        return await group.next() ?? nil
    }
}

/// A sink that records every image it reads back, on the render thread as each frame arrives
/// (ELImageTesting's `FrameCollector`), so a test reads the images as soon as a frame is processed.
/// `RawDataOutput` reads back on a worker thread instead: RawDataOutputTests cover it.
package func imageCollector() -> (FrameCollector, FrameCollector) {
    let collector = FrameCollector()
    return (collector, collector)
}

extension FrameCollector {
    /// The frames so far (`received`).
    package var values: [RGBAImage] { received }
}

/// A deterministic pseudo-random generator (SplitMix64), so failures reproduce.
package struct SeededGenerator: RandomNumberGenerator {
    package var state: UInt64
    package init(seed: UInt64) { state = seed }
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random bytes from a fixed seed.
package func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var generator = SeededGenerator(seed: seed)
    return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
}

/// Paths inside the repository.
package enum Repository {
    package static let root = URL(fileURLWithPath: #filePath)  // Tests/ELImageTestSupport/TestSupport.swift
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    package static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }
}

/// Writes `frames` frames of FFmpeg's moving test pattern (`testsrc2`) at `size` and `rate` to
/// `path`, in the container its extension names, as `pixelFormat`; `arguments` add output options
/// (a codec, muxer flags).
package func writeTestPattern(to path: String, size: String = "96x64", rate: String = "25", frames: Int,
                              pixelFormat: String = "yuv420p", _ arguments: [String] = []) throws {
    try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=\(rate)",
                           "-frames:v", "\(frames)"] + arguments + ["-pix_fmt", pixelFormat, path])
}

/// Runs a command line tool and returns its standard output; throws with its standard error.
@discardableResult
package func runTool(_ tool: String, _ arguments: [String]) throws -> Data {
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

package struct ToolFailure: Error, CustomStringConvertible {
    package let tool: String
    package let status: Int32
    package let message: String
    package init(tool: String, status: Int32, message: String) {
        (self.tool, self.status, self.message) = (tool, status, message)
    }
    package var description: String { "\(tool) exited \(status): \(message)" }
}

/// A fresh temporary folder, removed by `remove()`.
package struct TemporaryFolder {
    package let url: URL
    package init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("elimage-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    package func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    package func remove() { try? FileManager.default.removeItem(at: url) }
}

/// A server a test needs (a display, a sound server) that did not start: the test fails with why.
package struct ServerFailure: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
