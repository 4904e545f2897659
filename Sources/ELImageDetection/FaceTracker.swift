import Foundation

/// Gives each face a tracking ID that stays the same while the face moves between analysed frames:
/// a new box takes the ID of the old box it overlaps most (intersection over union), or, when a
/// fast move left no overlap, of an old box of similar size whose centre is within half a box
/// width. A track not matched for `maximumMisses` analysed frames in a row ends.
struct FaceTracker: Sendable {
    private struct Track: Sendable {
        let id: Int
        var bounds: CGRect
        var misses = 0
    }

    let minimumOverlap: Double
    let maximumMisses: Int
    private var tracks: [Track] = []
    private var nextID = 1

    init(minimumOverlap: Double = 0.3, maximumMisses: Int = 5) {
        self.minimumOverlap = minimumOverlap
        self.maximumMisses = maximumMisses
    }

    /// The tracking IDs of `boxes` (normalized), in order; updates the tracks.
    mutating func assign(_ boxes: [CGRect]) -> [Int] {
        var pairs: [(score: Double, box: Int, track: Int)] = []
        for (boxIndex, box) in boxes.enumerated() {
            for (trackIndex, track) in tracks.enumerated() {
                let score = Self.matchScore(box, track.bounds, minimumOverlap: minimumOverlap)
                if score > 0 { pairs.append((score, boxIndex, trackIndex)) }
            }
        }
        var ids = [Int?](repeating: nil, count: boxes.count)
        var matchedTracks = Set<Int>()
        for pair in pairs.sorted(by: { $0.score > $1.score })
        where ids[pair.box] == nil && !matchedTracks.contains(pair.track) {
            ids[pair.box] = tracks[pair.track].id
            matchedTracks.insert(pair.track)
            tracks[pair.track].bounds = boxes[pair.box]
            tracks[pair.track].misses = 0
        }
        for index in tracks.indices where !matchedTracks.contains(index) { tracks[index].misses += 1 }
        tracks.removeAll { $0.misses > maximumMisses }
        return boxes.indices.map { index in
            if let id = ids[index] { return id }
            let id = nextID
            nextID += 1
            tracks.append(Track(id: id, bounds: boxes[index]))
            return id
        }
    }

    /// How well `box` continues `track`: the IoU when it reaches `minimumOverlap`; else a small
    /// score for a nearby box of similar size (a fast move); else 0 (no match).
    static func matchScore(_ box: CGRect, _ track: CGRect, minimumOverlap: Double) -> Double {
        let overlap = box.intersectionOverUnion(track)
        if overlap >= minimumOverlap { return overlap }
        let sizeRatio = box.width / max(track.width, .ulpOfOne)
        guard sizeRatio > 0.67, sizeRatio < 1.5 else { return 0 }
        let dx = box.midX - track.midX, dy = box.midY - track.midY
        let distance = (dx * dx + dy * dy).squareRoot()
        let reach = track.width / 2
        return distance < reach ? 0.1 * (1 - distance / reach) : 0
    }
}
