import CFFmpeg
import ELImageFuzzing
import Foundation
#if ELIMAGE_FUZZING
import CLibFuzzer
#endif

/// The parser that libFuzzer's inputs go to, from the environment variable `ELIMAGE_FUZZ_PARSER`
/// (inherited by the processes libFuzzer starts itself, e.g. to minimize a crash).
enum FuzzTarget {
    static let parser: FuzzParser? = ProcessInfo.processInfo.environment["ELIMAGE_FUZZ_PARSER"]
        .flatMap(FuzzParser.init(rawValue:))

    /// Runs `bytes` through `parser`; stops the process (so that libFuzzer saves the input as a
    /// crash) when the parser broke its contract.
    static func consume(_ bytes: [UInt8], with parser: FuzzParser) {
        if case .failed(let reason) = parser.consume(bytes) {
            printError("\(parser) broke its contract: \(reason)")
            abort()
        }
    }

    static func printError(_ message: String) {
        FileHandle.standardError.write(Data(("elimage-fuzz: " + message + "\n").utf8))
    }

    #if ELIMAGE_FUZZING
    /// Hands the process to libFuzzer, which calls `LLVMFuzzerTestOneInput` with each input.
    /// (In this file: Swift emits an `@_cdecl` function's C symbol again in every file that takes
    /// its address.)
    static func runLibFuzzer() -> Never {
        guard parser != nil else {
            let names = FuzzParser.allCases.map(\.rawValue).joined(separator: ", ")
            printError("set ELIMAGE_FUZZ_PARSER to one of: \(names)")
            exit(2)
        }
        av_log_set_level(AV_LOG_QUIET)  // FFmpeg's complaints about damaged input would flood the output
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzerTestOneInput))
    }
    #endif
}

/// libFuzzer's entry point: one input, `size` bytes at `data`. Always returns 0 (the input may be
/// added to the corpus); a broken contract stops the process instead.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let parser = FuzzTarget.parser else { return 0 }
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    FuzzTarget.consume(bytes, with: parser)
    return 0
}
