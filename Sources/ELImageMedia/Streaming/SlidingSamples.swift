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

    /// Two percentiles (nearest rank) of the values kept, from one sort; 0 without any.
    func percentiles(_ first: Double, _ second: Double) -> (Double, Double) {
        guard !values.isEmpty else { return (0, 0) }
        let sorted = values.sorted()
        func rank(_ percent: Double) -> Double {
            sorted[min(sorted.count - 1, max(0, Int((percent / 100 * Double(sorted.count - 1)).rounded())))]
        }
        return (rank(first), rank(second))
    }
}
