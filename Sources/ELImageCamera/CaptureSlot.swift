import ELImage
import Foundation

/// The device session a camera's stream captures from, shared by the camera (start, stop,
/// restart, switch) and its producer thread (`CameraProducer`).
///
/// The producer borrows the session for one capture step (one poll slice and a frame's copy) and
/// gives it back; the camera reserves the slot to take the session out or swap it, waiting until
/// the producer gave it back (at most one slice) and keeping the producer out meanwhile, so a
/// session is never released while it captures. Whoever takes a session out releases it. Once
/// the slot has ended the producer ends the stream, reporting the failure that ended it, if any.
final class CaptureSlot: @unchecked Sendable {
    // @unchecked Sendable: every stored property is touched only while `condition` is locked.

    /// Why the stream ends.
    enum Ending {
        /// `finish()`, `cancel()`, `close()`, or the camera went away.
        case stopped
        /// A fatal failure, reported by the producer (then it becomes `.stopped`).
        case failed(ELImageError)
    }

    /// What the producer gets from `borrow()`.
    enum Borrowed {
        case session(CaptureSession)
        /// The stream ends; with the failure to report, handed out once.
        case ended(ELImageError?)
    }

    private let condition = NSCondition()
    private var session: CaptureSession?
    private var ending: Ending?
    private var borrowed = false
    private var reserved = false
    /// Reservations waiting or under way: the producer waits for them.
    private var reservations = 0

    /// A slot capturing from `session`, or one that ends at once with `failure` (a camera that
    /// could not start).
    init(_ session: CaptureSession?, failure: ELImageError? = nil) {
        self.session = session
        ending = failure.map { .failed($0) }
    }

    /// The session capturing now; nil once the stream ended.
    var current: CaptureSession? { locked { ending == nil ? session : nil } }

    // MARK: The producer's side

    /// The session to capture from, kept for the producer until `giveBack`; `.ended` once the
    /// stream ends. Waits while the camera reserves the slot. An abandoned session is released here.
    func borrow() -> Borrowed {
        let (result, abandoned) = locked { () -> (Borrowed, CaptureSession?) in
            while reservations > 0 { condition.wait() }
            if let ending {
                defer {
                    self.ending = .stopped
                    session = nil
                }
                if case .failed(let error) = ending { return (.ended(error), session) }
                return (.ended(nil), session)
            }
            guard let session else { return (.ended(nil), nil) }
            borrowed = true
            return (.session(session), nil)
        }
        abandoned?.release()
        return result
    }

    /// Gives the borrowed session back. With a `failure`, the session is taken out and the stream
    /// ends with it: the returned session is the caller's to release.
    func giveBack(failing failure: ELImageError? = nil) -> CaptureSession? {
        locked {
            borrowed = false
            condition.broadcast()
            guard let failure else { return nil }
            defer {
                session = nil
                if ending == nil { ending = .failed(failure) }
            }
            return session
        }
    }

    // MARK: The camera's side

    /// Runs `body` with the session and the ending while the producer does not capture, waiting
    /// for it to give the session back; `body` may take the session out (and release it), put
    /// another in, or end the stream. Waits for other reservations to finish first.
    func reserve<T>(_ body: (inout CaptureSession?, inout Ending?) throws -> T) rethrows -> T {
        var (session, ending) = locked { () -> (CaptureSession?, Ending?) in
            reservations += 1
            while borrowed || reserved { condition.wait() }
            reserved = true
            return (self.session, self.ending)
        }
        defer {
            locked {
                self.session = session
                self.ending = ending
                reserved = false
                reservations -= 1
                condition.broadcast()
            }
        }
        return try body(&session, &ending)
    }

    /// Ends the stream without waiting: the safety net of a camera released while running. The
    /// producer releases the session when it next looks.
    func abandon() {
        locked {
            if ending == nil { ending = .stopped }
            condition.broadcast()
        }
    }

    private func locked<T>(_ body: () -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }
}
