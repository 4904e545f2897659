import ELImageFuzzing
import Foundation

/// `elimage-fuzz`: the file parsers' fuzz harness (see `FuzzParser`).
///
/// Built for fuzzing (`make fuzz`: AddressSanitizer, coverage instrumentation, `-DELIMAGE_FUZZING`
/// and libFuzzer's driver linked in), it is a libFuzzer program; `ELIMAGE_FUZZ_PARSER` picks the
/// parser, the arguments are libFuzzer's:
///
///     ELIMAGE_FUZZ_PARSER=y4m .build-fuzz/debug/elimage-fuzz -max_total_time=30 corpus/
///
/// In an ordinary build it replays inputs (files, or folders of them) through the same entry point
/// and says what each did; it exits 1 when one broke the parser's contract:
///
///     swift run elimage-fuzz y4m Tests/Fuzz/Corpus/y4m crash-1234
@main
enum FuzzerMain {
    static func main() {
        #if ELIMAGE_FUZZING
        FuzzTarget.runLibFuzzer()
        #else
        exit(CorpusReplay.run(arguments: Array(CommandLine.arguments.dropFirst())))
        #endif
    }
}
