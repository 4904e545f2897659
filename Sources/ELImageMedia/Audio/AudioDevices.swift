import CPulse
import Foundation

/// A sound source the server offers (a microphone, a line input, or the monitor of an output).
public struct AudioDevice: Sendable, Equatable {
    /// The name to record from (`--audio NAME`).
    public var name: String
    /// What the server calls it for people.
    public var description: String
    /// Its native sample rate and channels.
    public var sampleRate: Int
    public var channels: Int
    /// True for the monitor of an output (what is played), not an input.
    public var isMonitor: Bool
    /// True for the server's default source.
    public var isDefault: Bool
}

/// The sound sources of the PulseAudio (or PipeWire) server, through libpulse's introspection.
public enum AudioDevices {
    /// The sources, inputs first.
    /// - Parameter server: a server address (`unix:/path`); nil: `PULSE_SERVER` or the user's.
    /// - Throws: `AudioCaptureError.noServer` when no server answers within 5 s.
    public static func list(server: String? = nil) throws(AudioCaptureError) -> [AudioDevice] {
        let query = ServerQuery()
        try query.run(server: server)
        return query.devices.map { device in
            var device = device
            device.isDefault = device.name == query.defaultSource
            return device
        }.sorted { !$0.isMonitor && $1.isMonitor }
    }

    /// The source called `name` (`default`: the server's default source).
    /// - Throws: `.noServer`, or `.noDevice` listing what there is.
    public static func find(_ name: String, server: String? = nil) throws(AudioCaptureError) -> AudioDevice {
        let devices = try list(server: server)
        let found = name == "default" ? devices.first(where: \.isDefault) ?? devices.first : devices.first { $0.name == name }
        guard let found else { throw .noDevice(name: name, available: devices.map(\.name)) }
        return found
    }
}

/// One connection to the server that asks for the server's and the sources' information.
private final class ServerQuery {
    var devices: [AudioDevice] = []
    var defaultSource: String?
    var pending = 0

    func run(server: String?) throws(AudioCaptureError) {
        let address = server ?? ProcessInfo.processInfo.environment["PULSE_SERVER"] ?? "the default server"
        guard let loop = pa_mainloop_new() else { throw .noServer(server: address, reason: "out of memory") }
        defer { pa_mainloop_free(loop) }
        guard let context = pa_context_new(pa_mainloop_get_api(loop), "elimage") else {
            throw .noServer(server: address, reason: "libpulse cannot make a context")
        }
        defer {
            pa_context_disconnect(context)
            pa_context_unref(context)
        }
        guard pa_context_connect(context, server, PA_CONTEXT_NOAUTOSPAWN, nil) >= 0 else {
            throw .noServer(server: address, reason: String(cString: pa_strerror(pa_context_errno(context))))
        }
        let deadline = Date().addingTimeInterval(5)
        func iterate() { pa_mainloop_iterate(loop, 0, nil); usleep(1000) }
        while pa_context_get_state(context) != PA_CONTEXT_READY {
            let state = pa_context_get_state(context)
            if state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED {
                throw .noServer(server: address, reason: String(cString: pa_strerror(pa_context_errno(context))))
            }
            if Date() > deadline { throw .noServer(server: address, reason: "no answer within 5 s") }
            iterate()
        }
        let me = Unmanaged.passUnretained(self).toOpaque()
        pending = 2
        pa_operation_unref(pa_context_get_server_info(context, { _, info, user in
            guard let user else { return }
            let query = Unmanaged<ServerQuery>.fromOpaque(user).takeUnretainedValue()
            if let name = info?.pointee.default_source_name { query.defaultSource = String(cString: name) }
            query.pending -= 1
        }, me))
        pa_operation_unref(pa_context_get_source_info_list(context, { _, info, last, user in
            guard let user else { return }
            let query = Unmanaged<ServerQuery>.fromOpaque(user).takeUnretainedValue()
            if last != 0 {
                query.pending -= 1
                return
            }
            guard let info = info?.pointee else { return }
            query.devices.append(AudioDevice(
                name: String(cString: info.name), description: info.description.map { String(cString: $0) } ?? "",
                sampleRate: Int(info.sample_spec.rate), channels: Int(info.sample_spec.channels),
                isMonitor: info.monitor_of_sink != UInt32.max, isDefault: false))
        }, me))
        while pending > 0 {
            if Date() > deadline { throw .noServer(server: address, reason: "no answer to the device query within 5 s") }
            iterate()
        }
    }
}
