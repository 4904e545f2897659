import Foundation

/// What to tell the user about a failed write to a file, by its `errno`.
enum WriteFailureHint {
    static func text(for code: Int32) -> String {
        switch code {
        case ENOSPC, EDQUOT: "the disk (or your quota) is full: free some space; what was written before stays playable"
        case EACCES, EPERM: "check the folder's permissions"
        case ENOENT: "check that the folder exists"
        case EROFS: "the file system is read-only; write somewhere else"
        case EISDIR: "give a file name, not a folder"
        case EIO: "the device reported an I/O error; check the disk"
        case EFBIG: "the file is too large for this file system; record in shorter parts"
        default: "check the path, the free space and the permissions"
        }
    }
}
