import PipeBasics

/// The "did you mean" part of a message, from `EditDistance.nearest`.
enum EditDistanceSuggestion {
    /// The candidate a mistyped word most likely meant.
    ///
    /// `EditDistance.nearest` allows two edits even in a two-letter word, which would offer `a` for `zz`; a
    /// suggestion must also keep at least one character of both words.
    static func nearest(to word: String, among candidates: [String]) -> String? {
        guard let nearest = EditDistance.nearest(to: word, in: candidates) else { return nil }
        let distance = EditDistance.distance(word.lowercased(), nearest.lowercased())
        guard distance < word.unicodeScalars.count, distance < nearest.unicodeScalars.count else { return nil }
        return nearest
    }

    /// `; did you mean 'timeout'?`, or an empty string when nothing is close.
    static func text(for word: String, among candidates: [String]) -> String {
        nearest(to: word, among: candidates).map { "; did you mean '\($0)'?" } ?? ""
    }
}
