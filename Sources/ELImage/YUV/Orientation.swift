/// How a picture is turned on its way into the graph: a clockwise rotation, then an optional
/// horizontal mirror (what a front camera's preview needs).
public struct Orientation: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    public enum Rotation: Int, Sendable, Hashable, CaseIterable {
        case none = 0, clockwise90 = 90, rotate180 = 180, clockwise270 = 270
    }

    public var rotation: Rotation
    public var mirrored: Bool

    public init(rotation: Rotation = .none, mirrored: Bool = false) {
        self.rotation = rotation
        self.mirrored = mirrored
    }

    /// As it comes.
    public static let up = Orientation()

    public static let allCases: [Orientation] = Rotation.allCases.flatMap { rotation in
        [false, true].map { Orientation(rotation: rotation, mirrored: $0) }
    }

    /// True when width and height trade places.
    public var swapsDimensions: Bool { rotation == .clockwise90 || rotation == .clockwise270 }

    /// The turn a file source gives its pictures: the file's own orientation (`source`, when
    /// `autorotate` applies it), then the user's (`then`).
    public static func forInput(source: Orientation, autorotate: Bool, then user: Orientation) -> Orientation {
        (autorotate ? source : .up).followed(by: user)
    }

    /// This turn, then `next`: the one orientation that shows what applying `self` and then
    /// `next` to the result shows (e.g. a file's own orientation, then the user's rotation).
    public func followed(by next: Orientation) -> Orientation {
        // With r the clockwise quarter turn and m the mirror, self is m^s r^k; a mirror turns the
        // direction of the rotations after it around (r m = m r⁻¹).
        let nextQuarters = mirrored ? (4 - next.quarterTurns) % 4 : next.quarterTurns
        let quarters = (quarterTurns + nextQuarters) % 4
        return Orientation(rotation: Self.rotation(quarterTurns: quarters), mirrored: mirrored != next.mirrored)
    }

    /// The clockwise rotation in quarter turns, 0...3.
    private var quarterTurns: Int { rotation.rawValue / 90 }

    private static func rotation(quarterTurns: Int) -> Rotation {
        switch quarterTurns {
        case 1: .clockwise90
        case 2: .rotate180
        case 3: .clockwise270
        default: .none
        }
    }

    /// The output size for an input of `width` x `height`.
    public func outputSize(width: Int, height: Int) -> (width: Int, height: Int) {
        swapsDimensions ? (height, width) : (width, height)
    }

    /// Column-major 3x3 mapping an output texture coordinate (u right, v down, 0...1) to the input
    /// coordinate it shows.
    var textureTransform: [Float] {
        // Input (u', v') as an affine function of output (u, v): u' = a u + b v + c, v' = d u + e v + f.
        var (a, b, c, d, e, f): (Float, Float, Float, Float, Float, Float)
        switch rotation {
        case .none: (a, b, c, d, e, f) = (1, 0, 0, 0, 1, 0)
        case .clockwise90: (a, b, c, d, e, f) = (0, 1, 0, -1, 0, 1)     // u' = v, v' = 1 - u
        case .rotate180: (a, b, c, d, e, f) = (-1, 0, 1, 0, -1, 1)      // u' = 1 - u, v' = 1 - v
        case .clockwise270: (a, b, c, d, e, f) = (0, -1, 1, 1, 0, 0)    // u' = 1 - v, v' = u
        }
        if mirrored {  // the output is flipped: substitute u -> 1 - u
            (c, f) = (c + a, f + d)
            (a, d) = (-a, -d)
        }
        return [a, d, 0, b, e, 0, c, f, 1]
    }

    public var description: String { "\(rotation.rawValue)°" + (mirrored ? " mirrored" : "") }
}
