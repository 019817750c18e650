import Foundation
import PipeBasics
import PipeCore
import PipeForge
import PipeStore
import PipeTestSupport

/// `pipe-bench forge-intake --queued N [--pushes P]`: what a push delivery costs the forge intake when the run
/// store's queue already holds `N` forge runs of other pull requests (one in a hundred still waiting). Each of `P`
/// pushes to one branch replaces the one before, so each supersedes a waiting run and queues its own, in a real
/// SQLite store on disk.
enum ForgeIntakeBench {
    static func measure(queued: Int, pushes: Int) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pipe-forge-intake-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let location = folder.appendingPathComponent("pipe.db")
        let store = try SQLiteRunStore(location: location)
        let fill = try SQLiteDatabase(path: location.path)
        let waiting = queued / 100
        try fill.execute(ForgeQueueFiller.sql(count: queued - waiting, forge: "github", repository: "o/app"))
        if waiting > 0 {
            try fill.execute(ForgeQueueFiller.sql(count: waiting, forge: "github", repository: "o/app", waiting: true))
        }
        fill.close()

        let intake = ForgeIntake(config: config, store: store) { _ in nil }
        var seconds: [Double] = []
        var superseded = 0
        var previous: String?
        for index in 0..<pushes {
            let head = String(format: "%040x", 0xbe00_0000 + index)
            let push = PushEvent(
                ref: "refs/heads/main", refKind: .branch, name: "main", before: previous, after: head,
                repository: "o/app", sender: "octocat")
            let delivery = WebhookDelivery(
                forge: .github, eventName: "push", deliveryID: "bench-\(index)",
                bodyDigest: String(format: "%064x", index + 1), event: .push(push))
            let started = DispatchTime.now().uptimeNanoseconds
            let result = try intake.accept(delivery)
            seconds.append(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9)
            superseded += result.actions.filter { if case .superseded = $0 { true } else { false } }.count
            previous = head
        }
        seconds.sort()
        let median = seconds[seconds.count / 2]
        let p99 = seconds[min(seconds.count - 1, Int((Double(seconds.count) * 0.99).rounded(.up)) - 1)]
        print(
            "queued=\(queued) pushes=\(pushes) median_ms=\(format(median * 1000)) p99_ms=\(format(p99 * 1000)) "
                + "superseded=\(superseded)")
    }

    private static let config = ForgeConfig(
        name: "github", kind: .github, apiURL: URL(string: "https://api.github.com")!, repository: "o/app",
        token: .environment("GITHUB_TOKEN"),
        webhook: WebhookEndpointConfig(path: "/hooks/github", secret: .environment("HOOK_SECRET")),
        push: [PushRule(pipelines: ["app-intents"], refs: [TrustedRefPattern("refs/heads/main")])])

    private static func format(_ value: Double) -> String { String(format: "%.2f", value) }
}
