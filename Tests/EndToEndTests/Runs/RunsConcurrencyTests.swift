import Foundation
import PipeTestSupport
import XCTest

/// Several `pipe` processes on one run store at once: runs writing every state change and event while listings
/// read, none of them told `database is locked`.
final class RunsConcurrencyTests: EmulatedHostTestCase {
    func testFourRunsAndFourReadersAtOnceAllSucceedOnOneStore() throws {
        let project = try makeProject()
        // Capacity does not limit runs yet; four at once on one emulated host is what this test wants.
        try project.writeHostsFile(host.hostsFileEntry(capacity: 4))
        let tally = Tally()
        let group = DispatchGroup()
        for index in 0..<4 {
            DispatchQueue.global().async(group: group) {
                let arguments = ["run", "app-intents", "--reason", "writer \(index)"]
                tally.run(arguments, in: project)
                tally.runEnded()
            }
        }
        // Four readers, each listing again and again while the runs write, so eight `pipe` processes use the
        // store at once for the whole time.
        for index in 0..<4 {
            DispatchQueue.global().async(group: group) {
                while true {
                    let done = tally.runsEnded == 4
                    let arguments = index % 2 == 0 ? ["runs", "list", "--json"] : ["runs", "list", "--limit", "all"]
                    tally.run(arguments, in: project)
                    if done { break }
                }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 120), .success, "the processes did not finish in 120 s")

        let all = tally.results
        XCTAssertEqual(tally.startFailures, [])
        XCTAssertGreaterThanOrEqual(all.count, 8)
        for (arguments, result) in all {
            let command = "pipe " + arguments.joined(separator: " ")
            XCTAssertEqual(result.exitCode, 0, "\(command):\n\(result.combined)")
            XCTAssertFalse(result.combined.lowercased().contains("locked"), "\(command):\n\(result.combined)")
        }
        let readers = all.filter { $0.arguments[0] == "runs" }.count
        XCTAssertGreaterThanOrEqual(readers, 8, "each reader ran at least twice")

        let runs = try XCTUnwrap(try json(project, ["runs", "list"]) as? [[String: Any]])
        XCTAssertEqual(runs.count, 4)
        XCTAssertEqual(Set(runs.compactMap { $0["runID"] as? String }).count, 4)
        XCTAssertEqual(Set(runs.compactMap { $0["status"] as? String }), ["finished"])
        XCTAssertEqual(Set(runs.compactMap { $0["exitCode"] as? Int }), [0])
        // Every run's recorded output is whole: the shared build's and both layers' verdicts are in it.
        for run in runs {
            let runID = try XCTUnwrap(run["runID"] as? String)
            let logs = try project.pipe(["runs", "logs", runID])
            XCTAssertEqual(logs.exitCode, 0, logs.combined)
            XCTAssertEqual(logs.stdout.components(separatedBy: "** TEST BUILD SUCCEEDED **").count, 2, logs.stdout)
            XCTAssertEqual(logs.stdout.components(separatedBy: "** TEST EXECUTE SUCCEEDED **").count, 3, logs.stdout)
        }
    }

    /// What the concurrent processes returned, collected from several threads.
    private final class Tally: @unchecked Sendable {
        private let lock = NSLock()
        private var collected: [(arguments: [String], result: CommandResult)] = []
        private var ended = 0
        private var failures: [String] = []

        /// Runs `pipe arguments` and keeps its result.
        func run(_ arguments: [String], in project: PipeProject) {
            do {
                let result = try project.pipe(arguments)
                lock.lock()
                collected.append((arguments, result))
                lock.unlock()
            } catch {
                lock.lock()
                failures.append("could not start `pipe \(arguments.joined(separator: " "))`: \(error)")
                lock.unlock()
            }
        }

        var startFailures: [String] {
            lock.lock()
            defer { lock.unlock() }
            return failures
        }

        func runEnded() {
            lock.lock()
            ended += 1
            lock.unlock()
        }

        var runsEnded: Int {
            lock.lock()
            defer { lock.unlock() }
            return ended
        }

        var results: [(arguments: [String], result: CommandResult)] {
            lock.lock()
            defer { lock.unlock() }
            return collected
        }
    }
}
