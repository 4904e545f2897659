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
final class CaptureSlot: Sendable {
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

    /// What the camera and the producer share, under the slot's lock.
    private struct SlotState {
        var session: CaptureSession?
        var ending: Ending?
        var borrowed = false
        var reserved = false
        /// Reservations waiting or under way: the producer waits for them.
        var reservations = 0
    }

    private let state: Locked<SlotState>

    /// A slot capturing from `session`, or one that ends at once with `failure` (a camera that
    /// could not start).
    init(_ session: CaptureSession?, failure: ELImageError? = nil) {
        state = Locked(SlotState(session: session, ending: failure.map { .failed($0) }))
    }

    /// The session capturing now; nil once the stream ended.
    var current: CaptureSession? { state.withLock { $0.ending == nil ? $0.session : nil } }

    // MARK: The producer's side

    /// The session to capture from, kept for the producer until `giveBack`; `.ended` once the
    /// stream ends. Waits while the camera reserves the slot. An abandoned session is released here.
    func borrow() -> Borrowed {
        let (result, abandoned) = state.withCondition { slot -> (Borrowed, CaptureSession?) in
            while slot.reservations > 0 { slot.wait() }
            if let ending = slot.ending {
                let abandoned = slot.session
                slot.ending = .stopped
                slot.session = nil
                if case .failed(let error) = ending { return (.ended(error), abandoned) }
                return (.ended(nil), abandoned)
            }
            guard let session = slot.session else { return (.ended(nil), nil) }
            slot.borrowed = true
            return (.session(session), nil)
        }
        abandoned?.release()
        return result
    }

    /// Gives the borrowed session back. With a `failure`, the session is taken out and the stream
    /// ends with it: the returned session is the caller's to release.
    func giveBack(failing failure: ELImageError? = nil) -> CaptureSession? {
        state.withCondition { slot in
            slot.borrowed = false
            slot.broadcast()
            guard let failure else { return nil }
            let taken = slot.session
            slot.session = nil
            if slot.ending == nil { slot.ending = .failed(failure) }
            return taken
        }
    }

    // MARK: The camera's side

    /// Runs `body` with the session and the ending while the producer does not capture, waiting
    /// for it to give the session back; `body` may take the session out (and release it), put
    /// another in, or end the stream. Waits for other reservations to finish first.
    func reserve<T>(_ body: (inout CaptureSession?, inout Ending?) throws -> T) rethrows -> T {
        var (session, ending) = state.withCondition { slot -> (CaptureSession?, Ending?) in
            slot.reservations += 1
            while slot.borrowed || slot.reserved { slot.wait() }
            slot.reserved = true
            return (slot.session, slot.ending)
        }
        defer {
            state.withCondition { slot in
                slot.session = session
                slot.ending = ending
                slot.reserved = false
                slot.reservations -= 1
                slot.broadcast()
            }
        }
        return try body(&session, &ending)
    }

    /// Ends the stream without waiting: the safety net of a camera released while running. The
    /// producer releases the session when it next looks.
    func abandon() {
        state.withCondition { slot in
            if slot.ending == nil { slot.ending = .stopped }
            slot.broadcast()
        }
    }
}
