/// "Did you mean …?" for a mistyped name: the known name closest to it, when it is close enough
/// to be a slip (an edit distance of at most a third of its length, or one starting the same way).
public enum NameSuggestion {
    /// The closest of `known` to `given`, or nil when none is plausibly what was meant.
    public static func closest(to given: String, among known: [String]) -> String? {
        let typed = given.lowercased()
        let scored = known.map { name in (name, distance(typed, name.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        if best.1 <= max(1, typed.count / 3) { return best.0 }
        // A name cut short or run on: "sat" for saturation, "grayscale2" for grayscale.
        return known.first { typed.count >= 3 && ($0.lowercased().hasPrefix(typed) || typed.hasPrefix($0.lowercased())) }
    }

    /// "; did you mean 'NAME'?" for `closest(to:among:)`, or "" when there is none.
    public static func sentence(for given: String, among known: [String]) -> String {
        closest(to: given, among: known).map { "; did you mean '\($0)'?" } ?? ""
    }

    /// The Levenshtein distance between `a` and `b` (insertions, deletions, substitutions).
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
