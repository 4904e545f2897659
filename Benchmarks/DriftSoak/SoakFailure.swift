/// Why the soak could not run or measure: what failed and what to do about it.
struct SoakFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
