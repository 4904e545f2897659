import ELImage

/// What the capture thread hands to the render thread: frames, failures and end-of-stream, in
/// order, with at most one frame waiting between two other events.
///
/// Posting a frame while another frame waits replaces it (the newest wins; the caller counts the
/// drop). Whoever posts into an idle mailbox is told to schedule one delivery; the delivery takes
/// one item and, if more wait, schedules the next. So at most one delivery is in flight and the
/// capture thread never waits for the graph.
final class FrameMailbox: Sendable {
    enum Item: Sendable {
        case frame(PixelBuffer, Orientation)
        case failure(ELImageError)
        case endOfStream
    }

    private struct State {
        var items: [Item] = []
        var deliveryScheduled = false
    }

    private let state = Locked(State())

    /// Posts a frame. `replaced` is true when a waiting frame was dropped for it; `schedule` is
    /// true when the caller must schedule a delivery.
    func post(frame: PixelBuffer, orientation: Orientation) -> (schedule: Bool, replaced: Bool) {
        state.withLock { state in
            var replaced = false
            if case .frame = state.items.last {
                state.items.removeLast()
                replaced = true
            }
            state.items.append(.frame(frame, orientation))
            return (Self.claimDelivery(&state), replaced)
        }
    }

    /// Posts a failure or end-of-stream; returns true when the caller must schedule a delivery.
    func post(_ item: Item) -> Bool {
        state.withLock { state in
            state.items.append(item)
            return Self.claimDelivery(&state)
        }
    }

    /// The oldest waiting item.
    func take() -> Item? {
        state.withLock { state in state.items.isEmpty ? nil : state.items.removeFirst() }
    }

    /// Ends a delivery. Returns true when items still wait: the caller schedules the next delivery.
    func finishDelivery() -> Bool {
        state.withLock { state in
            if state.items.isEmpty { state.deliveryScheduled = false }
            return !state.items.isEmpty
        }
    }

    /// True when nothing waits and no delivery is scheduled.
    var isIdle: Bool { state.withLock { $0.items.isEmpty && !$0.deliveryScheduled } }

    private static func claimDelivery(_ state: inout State) -> Bool {
        if state.deliveryScheduled { return false }
        state.deliveryScheduled = true
        return true
    }
}
