import PipeBasics

/// The "did you mean" part of a message, from `EditDistance.nearest`.
enum EditDistanceSuggestion {
    /// `; did you mean 'timeout'?`, or an empty string when nothing is close.
    static func text(for word: String, among candidates: [String]) -> String {
        guard let nearest = EditDistance.nearest(to: word, in: candidates) else { return "" }
        return "; did you mean '\(nearest)'?"
    }
}
