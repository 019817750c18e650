import Foundation

/// Counts how often each flaky canned test has run in one workspace (one Pipe run and its retries).
enum FlakyTestCounter {
    static let fileName = ".pipe-emulator-flaky-runs.json"

    /// Returns how many times the test ran before in this workspace, and counts this run.
    static func next(for test: TestIdentity, in root: URL) -> Int {
        let url = root.appendingPathComponent(fileName)
        var counts = (try? JSONDecoder().decode([String: Int].self, from: Data(contentsOf: url))) ?? [:]
        let key = "\(test.target)/\(test.suite)/\(test.name)"
        let previous = counts[key, default: 0]
        counts[key] = previous + 1
        if let data = try? JSONEncoder().encode(counts) { try? data.write(to: url) }
        return previous
    }
}
