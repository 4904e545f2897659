import ELImageMedia
import ELImageTesting
import Foundation
import Testing

/// The private PulseAudio server of the sound tests (`PrivateSoundServer`): a null sink
/// (`nullsink`, whose `nullsink.monitor` is paced in real time) and a 440 Hz sine source (`sine`,
/// delivered in bursts). Stopped by its PID with `stop()`.
package struct PulseAudioServer {
    package let server: PrivateSoundServer
    /// `PULSE_SERVER` for clients.
    package var address: String { server.address }

    /// Starts the server and waits (up to 10 s) until it answers.
    /// - Throws: when `pulseaudio` is not installed (the test fails with that reason) or does not start.
    package static func start() async throws -> PulseAudioServer {
        let server = try PrivateSoundServer.start(modules: ["module-null-sink sink_name=nullsink",
                                                            "module-sine-source source_name=sine rate=48000 frequency=440"])
        // The socket listens a moment before the server's loop answers (a state with no event to
        // wait on, so it is asked again until the deadline).
        let answers = await waitUntil(timeout: .seconds(10)) { (try? AudioDevices.list(server: server.address)) != nil }
        guard answers else {
            server.stop()
            throw ServerFailure("pulseaudio did not answer on \(server.address) within 10 s")
        }
        return PulseAudioServer(server: server)
    }

    /// A path in the server's private folder.
    package func path(_ name: String) -> String { server.path(name) }

    /// Stops the server by its PID and removes its folder.
    package func stop() { server.stop() }
}
