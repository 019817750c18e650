import Foundation
import PipeTestSupport
import XCTest

/// The queue: limits and host capacity with more queued runs than hosts take, people before schedules.
final class ControllerQueueTests: ControllerTestCase {
    func testMoreQueuedRunsThanHostSlotsNeverRunMoreAtOnceThanTheHostTakes() throws {
        let project = try controllerProject(capacity: 2, testSeconds: 1.5)
        try writeConfig("limits: {runs: 4}\n", in: project)
        let queued = try (0..<5).map { _ in try enqueue(project) }
        let controller = try startController(in: project)
        var most = 0
        var all: [[String: Any]] = []
        try waitUntil("every queued run has ended", timeout: 90) {
            all = try runs(project)
            most = max(most, all.filter { $0["status"] as? String == "running" }.count)
            return all.count == 5 && all.allSatisfy(isEnded)
        }
        XCTAssertEqual(Set(all.compactMap { $0["runID"] as? String }), Set(queued), "each queued run ran, once")
        XCTAssertTrue(all.allSatisfy { $0["status"] as? String == "finished" }, "\(all)")
        XCTAssertLessThanOrEqual(most, 2)
        // From the records: never more than two runs between start and end at once.
        let spans = try all.map { run -> (String, String) in
            (try XCTUnwrap(run["startedAt"] as? String), try XCTUnwrap(run["finishedAt"] as? String))
        }
        let overlap = spans.map { span in spans.filter { $0.0 <= span.0 && span.0 < $0.1 }.count }.max() ?? 0
        XCTAssertEqual(overlap, 2, "two at once, as the host's capacity allows: \(spans)")
        let log = output(of: controller)
        XCTAssertTrue(log.contains("wait"), log)
        XCTAssertTrue(log.contains("every host app-intents may use is busy"), log)
        XCTAssertEqual(stop(controller).exitCode, 0)
    }

    func testThePerPipelineLimitHoldsRunsBackEvenWithFreeHostSlots() throws {
        let project = try controllerProject(capacity: 3, testSeconds: 1)
        try writeConfig("limits:\n  pipelines: {app-intents: 1}\n", in: project)
        _ = try (0..<3).map { _ in try enqueue(project) }
        let controller = try startController(in: project)
        var all: [[String: Any]] = []
        try waitUntil("every queued run has ended", timeout: 90) {
            all = try runs(project)
            return all.count == 3 && all.allSatisfy(isEnded)
        }
        let spans = try all.map { run -> (String, String) in
            (try XCTUnwrap(run["startedAt"] as? String), try XCTUnwrap(run["finishedAt"] as? String))
        }.sorted { $0.0 < $1.0 }
        for (earlier, later) in zip(spans, spans.dropFirst()) {
            XCTAssertLessThanOrEqual(earlier.1, later.0, "one run of the pipeline at a time: \(spans)")
        }
        XCTAssertTrue(output(of: controller).contains("1 run of app-intents at once"), output(of: controller))
        XCTAssertEqual(stop(controller).exitCode, 0)
    }

    func testAScheduleFiresEverySlotOnceAndEnqueueGoesFirst() throws {
        let project = try controllerProject(capacity: 1, testSeconds: 2)
        try writeConfig(
            """
            schedules:
              often:
                pipeline: app-intents
                cron: "@every 1s"
                missed: skip
            """, in: project)
        let controller = try startController(in: project)
        // The schedule fills the queue faster than the host runs; a person's request goes before all of it.
        waitUntil("the schedule has fired three times", timeout: 30) {
            output(of: controller).components(separatedBy: "schedule often: slot").count > 3
        }
        let manual = try enqueue(project, ["--reason", "a person asked"])
        let queue = try XCTUnwrap(try status(project)["queued"] as? [[String: Any]])
        XCTAssertEqual(queue.first?["runID"] as? String, manual, "\(queue)")
        XCTAssertGreaterThan(queue.count, 1)
        let ended = stop(controller)
        XCTAssertEqual(ended.exitCode, 0)
        let slots = ended.stdout.split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: "schedule often: slot ") else { return nil }
            return String(line[range.upperBound...].prefix(20))
        }
        XCTAssertEqual(Set(slots).count, slots.count, "no slot fired twice: \(slots)")
    }

    func testRunsWaitForAMissingHostsFileAndARequestWhosePipelineWentAwayFails() throws {
        let project = try controllerProject()
        try writeConfig("limits: {runs: 1}\n", in: project)
        let hostsFile = project.url.appendingPathComponent(".pipe/hosts.yml")
        let saved = try String(contentsOf: hostsFile, encoding: .utf8)
        let queued = try enqueue(project)
        try FileManager.default.removeItem(at: hostsFile)
        let controller = try startController(in: project)
        waitUntil("the controller says why the queue waits", timeout: 20) {
            output(of: controller).contains("queued runs wait: no hosts file at")
        }
        XCTAssertEqual(try runs(project).count, 0)
        XCTAssertEqual((try status(project)["queued"] as? [[String: Any]])?.first?["runID"] as? String, queued)

        // Fixed, the run starts.
        try saved.write(to: hostsFile, atomically: true, encoding: .utf8)
        try waitUntil("the run has ended", timeout: 60) { isEnded(run(queued, in: try runs(project))) }
        XCTAssertEqual(run(queued, in: try runs(project))?["status"] as? String, "finished")

        // A queued request whose pipeline was removed meanwhile fails with the reason, and the controller goes on.
        // (The hosts file is away again so the request cannot start before its pipeline is.)
        try FileManager.default.removeItem(at: hostsFile)
        let orphan = try enqueue(project)
        let pipelineFile = project.url.appendingPathComponent("pipelines/app-intents.yml")
        try FileManager.default.moveItem(at: pipelineFile, to: project.url.appendingPathComponent("kept.yml"))
        waitUntil("the orphan request has failed", timeout: 20, context: self.output(of: controller)) {
            output(of: controller).contains("run \(orphan) of app-intents cannot run: no pipeline 'app-intents'")
        }
        try FileManager.default.moveItem(at: project.url.appendingPathComponent("kept.yml"), to: pipelineFile)
        XCTAssertNil(run(orphan, in: try runs(project)))
        XCTAssertTrue(controller.process.isRunning)
        XCTAssertEqual(stop(controller).exitCode, 0)
    }

    func testAPipelineFileChangedWhileTheControllerRunsIsReadForTheNextRun() throws {
        // The controller keeps parsed pipelines between scheduling passes; an edit must still reach the next run.
        let project = try controllerProject()
        try writeConfig("limits: {runs: 1}\n", in: project)
        let controller = try startController(in: project)
        let first = try enqueue(project)
        try waitUntil("the first run has ended", timeout: 60) { isEnded(run(first, in: try runs(project))) }
        let layers = { (id: String) in
            ((try? self.runs(project)).flatMap { self.run(id, in: $0) }?["layers"] as? [[String: Any]])?.map {
                $0["name"] as? String
            }
        }
        XCTAssertEqual(layers(first), ["logic"])

        // Renamed in place (the same inode), as an editor that rewrites the file does.
        let file = project.url.appendingPathComponent("pipelines/app-intents.yml")
        let text = try String(contentsOf: file, encoding: .utf8)
        try text.replacingOccurrences(of: "  logic:", with: "  unit:").write(
            to: file, atomically: false, encoding: .utf8)
        let second = try enqueue(project)
        try waitUntil("the second run has ended", timeout: 60) { isEnded(run(second, in: try runs(project))) }
        XCTAssertEqual(layers(second), ["unit"], output(of: controller))
        XCTAssertEqual(run(second, in: try runs(project))?["status"] as? String, "finished")
        XCTAssertEqual(stop(controller).exitCode, 0)
    }

    func testJSONLinesNameTheRunOfEveryEvent() throws {
        let project = try controllerProject()
        try writeConfig("limits: {runs: 1}\n", in: project)
        let queued = try enqueue(project)
        let controller = try BackgroundPipe(["controller", "--json"], in: project)
        try waitUntil("the run has ended", timeout: 60) { isEnded(run(queued, in: try runs(project))) }
        let ended = stop(controller)
        XCTAssertEqual(ended.exitCode, 0, ended.combined)
        let objects = try ended.stdout.split(separator: "\n").map { line in
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
        }
        let ofRun = objects.filter { $0["event"] as? String != "controller" }
        XCTAssertFalse(ofRun.isEmpty)
        XCTAssertTrue(ofRun.allSatisfy { $0["run"] as? String == queued }, "\(ofRun)")
        XCTAssertTrue(ofRun.contains { $0["event"] as? String == "run-finished" })
        let kinds = objects.filter { $0["event"] as? String == "controller" }.compactMap { $0["kind"] as? String }
        XCTAssertEqual(kinds.first, "started")
        XCTAssertTrue(kinds.contains("run-started") && kinds.contains("run-finished"), "\(kinds)")
        XCTAssertEqual(kinds.last, "stopped")
        let finished = objects.first { $0["kind"] as? String == "run-finished" }
        XCTAssertEqual(finished?["run"] as? String, queued)
        XCTAssertEqual(finished?["status"] as? String, "finished")
        XCTAssertEqual(finished?["exitCode"] as? String, "0")
    }
}
