/// The last `capacity` values of a measurement, for its percentiles.
struct SlidingSamples {
    let capacity: Int
    private var values: [Double] = []
    private var next = 0

    init(capacity: Int) { self.capacity = max(1, capacity) }

    mutating func append(_ value: Double) {
        if values.count < capacity {
            values.append(value)
        } else {
            values[next] = value
            next = (next + 1) % capacity
        }
    }

    /// The `percent` percentile (nearest rank) of the values kept; 0 without any.
    func percentile(_ percent: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let rank = Int((percent / 100 * Double(sorted.count - 1)).rounded())
        return sorted[min(sorted.count - 1, max(0, rank))]
    }
}
