import Foundation

/// What a path is when it is not a regular file, in the words of error messages: readers that
/// must read a file's header first, or open it more than once, refuse pipes and devices by name.
enum SpecialFileKind {
    /// "a folder", "a FIFO (named pipe)", "a socket" or "a device" for `mode` (`st_mode`); nil for
    /// a regular file.
    static func name(of mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "a folder"
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFSOCK: "a socket"
        default: "a device"
        }
    }
}
