import Foundation
import PipeCore

extension MarkdownSummary {
    /// One line per build several layers shared (`xcodebuild-test`'s `build-for-testing`), from the attempts'
    /// facts: which layers, who built, how long, and the building time the others did not spend. Empty when no
    /// layer shared a build.
    static func sharedBuilds(_ record: RunRecord, redactor: SecretRedactor) -> String {
        var order: [String] = []
        var builds: [String: (facts: [String: String], saved: Double)] = [:]
        for attempt in record.layers.flatMap(\.attempts) {
            guard let log = attempt.facts["sharedBuildLog"], attempt.facts["sharedBuild"] != nil else { continue }
            if builds[log] == nil {
                order.append(log)
                builds[log] = (attempt.facts, 0)
            }
            builds[log]?.saved += Double(attempt.facts["buildSecondsSaved"] ?? "") ?? 0
        }
        guard !order.isEmpty else { return "" }
        var text = ""
        for log in order {
            guard let build = builds[log] else { continue }
            let layers = (build.facts["sharedBuild"] ?? "").split(separator: ",").map {
                MarkdownText.code(redactor.redact($0.trimmingCharacters(in: .whitespaces)))
            }
            let seconds = Double(build.facts["sharedBuildSeconds"] ?? "") ?? 0
            text +=
                "**Built once** for \(layers.joined(separator: ", ")) by "
                + MarkdownText.code(redactor.redact(build.facts["sharedBuildBy"] ?? "?")) + " in "
                + duration(seconds) + "; " + duration(build.saved) + " of building saved (log "
                + MarkdownText.code(redactor.redact(log)) + ").\n"
        }
        return text + "\n"
    }

    /// One line saying how each layer that builds built: warm in a build cache, or cold and why. Empty when no
    /// layer says.
    static func buildCaches(_ record: RunRecord, redactor: SecretRedactor) -> String {
        let parts = record.layers.compactMap { layer -> String? in
            guard let build = layer.build else { return nil }
            return MarkdownText.code(redactor.redact(layer.name)) + " " + build.state.rawValue
                + (build.cache.map { " in " + MarkdownText.code(redactor.redact($0)) } ?? "")
                + (build.reason.map { " (" + MarkdownText.plain(redactor.redact($0)) + ")" } ?? "")
        }
        guard !parts.isEmpty else { return "" }
        return "**Builds:** " + parts.joined(separator: "; ") + ".\n\n"
    }
}
