import ELImageFuzzing
import Foundation

/// Replays inputs through a parser's fuzz entry point in an ordinary build, to look at a crash
/// input or a corpus without libFuzzer.
enum CorpusReplay {
    /// `arguments`: a parser name (or `ELIMAGE_FUZZ_PARSER` set), then files or folders.
    /// - Returns: the exit status: 0 when every input parsed or was rejected with an
    ///   `ELImageError`, 1 when one broke the contract, 2 for a usage error.
    static func run(arguments: [String]) -> Int32 {
        var paths = arguments
        let parser: FuzzParser
        if let first = paths.first, let named = FuzzParser(rawValue: first) {
            parser = named
            paths.removeFirst()
        } else if let fromEnvironment = FuzzTarget.parser {
            parser = fromEnvironment
        } else {
            let names = FuzzParser.allCases.map(\.rawValue).joined(separator: "|")
            FuzzTarget.printError("usage: elimage-fuzz \(names) FILE|FOLDER...")
            return 2
        }
        var failures = 0
        for path in paths.flatMap(files(at:)) {
            guard let data = FileManager.default.contents(atPath: path) else {
                FuzzTarget.printError("cannot read \(path)")
                return 2
            }
            let outcome = parser.consume(Array(data))
            print("\(path): \(outcome)")
            if case .failed = outcome { failures += 1 }
        }
        return failures == 0 ? 0 : 1
    }

    /// `path` itself, or the files in the folder `path` (not its subfolders), sorted.
    private static func files(at path: String) -> [String] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue,
              let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return [path] }
        return names.sorted().map { "\(path)/\($0)" }.filter { file in
            var isSubfolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: file, isDirectory: &isSubfolder) && !isSubfolder.boolValue
        }
    }
}
