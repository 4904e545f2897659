import Foundation

/// The file system a folder is on, as a benchmark's report states where it wrote: writing frames
/// into memory (tmpfs) and onto a disk (ext4, xfs, ...) cost differently, and a disk's write-back
/// of earlier runs moves the figures of the runs after it.
enum FileSystemKind {
    /// "PATH (TYPE)", the type from the longest mount point in `/proc/mounts` that holds `path`;
    /// just the path where the mounts cannot be read.
    static func describe(_ path: String) -> String {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        guard let mounts = try? String(contentsOfFile: "/proc/mounts", encoding: .utf8) else { return path }
        var best: (point: String, type: String)?
        for line in mounts.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 3 else { continue }
            // Mount points escape spaces as \040.
            let point = fields[1].replacingOccurrences(of: "\\040", with: " ")
            let holds = point == "/" || resolved == point || resolved.hasPrefix(point + "/")
            if holds, point.count >= (best?.point.count ?? 0) { best = (point, String(fields[2])) }
        }
        return best.map { "\(path) (\($0.type))" } ?? path
    }
}
