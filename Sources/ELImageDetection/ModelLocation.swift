import ELImage
import Foundation

/// Where the detector networks are installed. Each network has a folder of its own (`mtcnn`,
/// `selfie_segmentation`), looked for in these folders, in order:
///
/// 1. `$ELIMAGE_MODELS`, when it is set (and then only there);
/// 2. `<folder of the running program>/../share/elimage/models`: beside a program installed by
///    `make install` (any `PREFIX`) or by the Debian package;
/// 3. `/usr/local/share/elimage/models`: where `make models` installs them;
/// 4. `/usr/share/elimage/models`: the Debian package's folder.
///
/// The first folder that holds the network's folder is used. When none does, the answer is the
/// network's folder in `$ELIMAGE_MODELS` or `/usr/local/share/elimage/models`, and loading it
/// fails with an error whose hint (`missingHint(for:)`) names every folder searched.
public struct ModelLocation: Sendable, Equatable {
    /// The environment variable that names the one folder to search.
    public static let environmentVariable = "ELIMAGE_MODELS"
    /// Where `make models` installs the networks.
    public static let localFolder = "/usr/local/share/elimage/models"
    /// Where the Debian package installs them.
    public static let systemFolder = "/usr/share/elimage/models"

    /// The folders searched, in order, without repeats.
    public let searched: [String]
    /// Whether `searched` is the one folder `$ELIMAGE_MODELS` names.
    public let isFromEnvironment: Bool

    /// The search order for a process with `environment` whose program is at `executablePath`.
    ///
    /// - Parameters:
    ///   - environment: the variables read (`ELIMAGE_MODELS`); the process's own by default.
    ///   - executablePath: the running program's file, symbolic links resolved; `nil` leaves out
    ///     the folder beside it. By default, the process's own (`/proc/self/exe`).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment,
                executablePath: String? = ModelLocation.runningProgram) {
        if let folder = environment[Self.environmentVariable], !folder.isEmpty {
            searched = [folder]
            isFromEnvironment = true
            return
        }
        let beside = executablePath.map {
            (($0 as NSString).deletingLastPathComponent as NSString)
                .appendingPathComponent("../share/elimage/models") as NSString
        }.map { $0.standardizingPath }
        var folders: [String] = []
        for folder in [beside, Self.localFolder, Self.systemFolder].compactMap({ $0 }) where !folders.contains(folder) {
            folders.append(folder)
        }
        searched = folders
        isFromEnvironment = false
    }

    /// The running program's file (`/proc/self/exe` read), or `nil` where it cannot be read.
    public static var runningProgram: String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    }

    /// The folder of the network `name` (`mtcnn`, `selfie_segmentation`): in the first searched
    /// folder that holds it, else in `$ELIMAGE_MODELS` or `/usr/local/share/elimage/models`.
    ///
    /// - Parameter name: the network's folder name inside a models folder.
    public func folder(for name: String) -> String {
        let found = searched.first { root in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: root + "/" + name, isDirectory: &isFolder) && isFolder.boolValue
        }
        return (found ?? (isFromEnvironment ? searched[0] : Self.localFolder)) + "/" + name
    }

    /// What an error about the missing network `name` says to do: the folders searched, and how
    /// the networks are installed.
    ///
    /// - Parameter name: the network's folder name inside a models folder.
    public func missingHint(for name: String) -> String {
        let folders = searched.map { $0 + "/" + name }.joined(separator: ", ")
        let source = isFromEnvironment ? " (from $\(Self.environmentVariable))" : ""
        return "ELImage looks for the networks in \(folders)\(source); run `make deps` (or `make models`) in ELImage's folder, "
            + "which installs them, checked, into \(Self.localFolder)/\(name); or install ELImage with `make install` or its "
            + "Debian package; or set \(Self.environmentVariable) to a folder holding \(name)/ (\(DocumentationPage.models.pointer))"
    }
}
