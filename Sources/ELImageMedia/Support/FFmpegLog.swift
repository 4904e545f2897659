import CFFmpeg
import Foundation
import Synchronization

/// FFmpeg's own messages (libavformat's, libavcodec's, a network protocol's), routed through
/// ELImage: dropped unless asked for, and never with a secret in them (every RTMP and SRT address
/// in a line is redacted, `AddressRedaction`). ELImage's errors already say what failed; these
/// lines are for diagnosing FFmpeg itself.
///
/// ```swift
/// FFmpegLog.route(.warning) { level, line in logger.warning("\(line)") }
/// ```
public enum FFmpegLog {
    /// How much FFmpeg says, most severe first.
    public enum Level: Int32, Sendable, CaseIterable, Comparable {
        case quiet = -8, error = 16, warning = 24, info = 32, verbose = 40, debug = 48

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// Sends FFmpeg's messages at `level` and the more severe ones to `handler`, one line each,
    /// addresses redacted, on whichever thread FFmpeg speaks; `.quiet` (the default) drops them all.
    public static func route(_ level: Level, to handler: @escaping @Sendable (Level, String) -> Void) {
        installed()
        self.handler.withLock { $0 = handler }
        threshold.store(level.rawValue, ordering: .releasing)
        av_log_set_level(level.rawValue)
    }

    /// Puts ELImage's callback in place of FFmpeg's own printing to standard error, at `.quiet`
    /// until `route` is called. Called before ELImage first uses FFmpeg; once per process.
    static func installed() { _ = installation }

    private static let installation: Void = {
        av_log_set_level(threshold.load(ordering: .acquiring))
        av_log_set_callback { context, level, format, arguments in
            guard level <= FFmpegLog.threshold.load(ordering: .acquiring), let format, let arguments else { return }
            var line = [CChar](repeating: 0, count: 1024)
            var printPrefix: Int32 = 1
            av_log_format_line2(context, level, format, arguments, &line, Int32(line.count), &printPrefix)
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                .trimmingCharacters(in: .newlines)
            guard !text.isEmpty, let handler = FFmpegLog.handler.withLock({ $0 }) else { return }
            let named = Level.allCases.first { $0 != .quiet && $0.rawValue >= level } ?? .debug
            handler(named, AddressRedaction.redactAddresses(in: text))
        }
    }()

    private static let threshold = Atomic<Int32>(Level.quiet.rawValue)
    private static let handler = Mutex<(@Sendable (Level, String) -> Void)?>(nil)
}
