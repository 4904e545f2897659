import Foundation

/// The machine a benchmark ran on, as its report's heading states it: processor, cores, memory
/// and system, read from `/proc/cpuinfo` and `/etc/os-release` where they exist, and how busy it
/// was when the run began (`/proc/loadavg`), since other work on the machine moves every figure.
struct MachineDescription: Codable {
    let processor: String
    let cores: Int
    let memoryGiB: Int
    let system: String
    /// The load average over the minute before the run (nil where the system does not say).
    let loadAverage: Double?

    static var current: MachineDescription {
        MachineDescription(
            processor: field("model name", in: "/proc/cpuinfo", separator: ":") ?? "unknown processor",
            cores: ProcessInfo.processInfo.activeProcessorCount,
            memoryGiB: Int((Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824).rounded()),
            system: field("PRETTY_NAME", in: "/etc/os-release", separator: "=")?
                .trimmingCharacters(in: CharacterSet(charactersIn: "\"")) ?? "unknown system",
            loadAverage: (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))
                .flatMap { $0.split(separator: " ").first }.flatMap { Double($0) })
    }

    /// One line: "Intel Xeon … (2 cores, 24 GiB), Debian GNU/Linux 12 (bookworm), load 0.4".
    var summary: String {
        "\(processor) (\(cores) cores, \(memoryGiB) GiB), \(system)" + (loadAverage.map { String(format: ", load %.1f", $0) } ?? "")
    }

    /// The value of the first line of `path` that starts with `key`, after `separator`.
    private static func field(_ key: String, in path: String, separator: Character) -> String? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(key) {
            guard let split = line.firstIndex(of: separator) else { continue }
            return line[line.index(after: split)...].trimmingCharacters(in: .whitespaces)
        }
        return nil
    }
}
