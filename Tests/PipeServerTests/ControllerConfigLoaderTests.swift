import Foundation
import PipeServer
import PipeSpec
import XCTest

/// The controller's config file: what it reads, its defaults, and every problem at once with its position.
final class ControllerConfigLoaderTests: XCTestCase {
    private let loader = ControllerConfigLoader(pipelines: ["app-intents", "nightly-ui"])

    func testAFullConfig() throws {
        let config = try loader.load(
            yaml: """
                grace-period: 2m
                limits:
                  runs: 4
                  per-pipeline: 2
                  pipelines: {nightly-ui: 1}
                schedules:
                  nightly:
                    pipeline: nightly-ui
                    cron: "30 2 * * 1-5"
                    time-zone: Asia/Tokyo
                    ref: main
                    parameters: {scheme: Reader}
                    missed: skip
                  often:
                    pipeline: app-intents
                    cron: "@every 30s"
                watches:
                  main:
                    pipeline: app-intents
                    branches: [main, "release/*"]
                    interval: 45s
                """, file: "controller.yml")
        XCTAssertEqual(config.gracePeriodSeconds, 120)
        XCTAssertEqual(config.limits, ControllerLimits(runs: 4, perPipeline: 2, pipelines: ["nightly-ui": 1]))
        XCTAssertEqual(config.limits.limit(forPipeline: "app-intents"), 2)
        XCTAssertEqual(config.limits.limit(forPipeline: "nightly-ui"), 1)
        XCTAssertEqual(config.schedules.map(\.name), ["nightly", "often"])
        let nightly = config.schedules[0]
        XCTAssertEqual(nightly.ref, "main")
        XCTAssertEqual(nightly.parameters, ["scheme": "Reader"])
        XCTAssertEqual(nightly.missed, .skip)
        XCTAssertEqual(nightly.timing, .cron(try CronExpression("30 2 * * 1-5"), TimeZone(identifier: "Asia/Tokyo")!))
        XCTAssertEqual(config.schedules[1].timing, .every(seconds: 30))
        XCTAssertEqual(config.schedules[1].missed, .once, "once by default")
        XCTAssertEqual(config.watches.first?.branches.map(\.pattern), ["main", "release/*"])
        XCTAssertEqual(config.watches.first?.intervalSeconds, 45)
    }

    func testDefaults() throws {
        let config = try loader.load(
            yaml: "watches:\n  w: {pipeline: app-intents, branches: main}\n", file: "c.yml")
        XCTAssertEqual(config.gracePeriodSeconds, ControllerConfig.defaultGracePeriodSeconds)
        XCTAssertEqual(config.limits, ControllerLimits())
        XCTAssertEqual(config.watches.first?.intervalSeconds, ControllerConfigLoader.defaultWatchInterval)
        XCTAssertEqual(config.sessionIdleSeconds, 60)
    }

    func testSessionIdleTakesADurationOrZero() throws {
        for (text, seconds) in [("90s", 90.0), ("5m", 300), ("45", 45), ("0", 0), ("0s", 0), ("'0'", 0)] {
            let config = try loader.load(yaml: "session-idle: \(text)\n", file: "c.yml")
            XCTAssertEqual(config.sessionIdleSeconds, seconds, text)
        }
    }

    func testABadSessionIdleIsNamedWithItsPosition() {
        for text in ["soon", "-5", "1w"] {
            XCTAssertThrowsError(try loader.load(yaml: "grace-period: 1m\nsession-idle: \(text)\n", file: "c.yml")) {
                error in
                XCTAssertEqual(
                    (error as? SpecErrors)?.problems.map(\.description),
                    [
                        "c.yml:2:15: error: session-idle: expected how long an idle SSH session is kept for the next "
                            + "run, such as 60s or 5m, or 0 to close each one when its run ends; found '\(text)'"
                    ])
            }
        }
    }

    func testEveryProblemAtOnceWithItsPosition() {
        let yaml = """
            limits: {runs: -1, burst: 3}
            schedules:
              nightly:
                pipeline: app-intent
                cron: '0 2 31 2 *'
              bad name:
                pipeline: app-intents
                cron: "@daily"
              hourly:
                cron: "*/15 * * *"
                time-zone: Europe/Pari
            watches:
              main:
                pipeline: app-intents
                branches: []
                interval: soon
            """
        XCTAssertThrowsError(try loader.load(yaml: yaml, file: "controller.yml")) { error in
            let lines = (error as? SpecErrors)?.problems.map(\.description) ?? []
            XCTAssertEqual(
                lines,
                [
                    "controller.yml:1:16: error: limits.runs: must be at least 1, found -1",
                    "controller.yml:1:20: error: limits.burst: unknown key; expected one of 'per-pipeline', 'pipelines' or 'runs'",
                    "controller.yml:4:15: error: schedules.nightly.pipeline: no pipeline 'app-intent' in pipelines/; did you mean 'app-intents'?",
                    "controller.yml:5:16: error: schedules.nightly.cron: '0 2 31 2 *' never fires: none of its months has day 31 (February has at most 29 days, April, June, September and November 30)",
                    "controller.yml:6:3: error: schedules.bad name: 'bad name' cannot name a schedule: use letters, digits, '.', '_' and '-'",
                    "controller.yml:10:5: error: schedules.hourly: missing required key 'pipeline'; the name of a pipeline in pipelines/",
                    "controller.yml:10:11: error: schedules.hourly.cron: a cron expression has five fields (minute hour day-of-month month day-of-week, e.g. '0 2 * * *'), found 4",
                    "controller.yml:11:16: error: schedules.hourly.time-zone: 'Europe/Pari' is not a time zone name; did you mean 'Europe/Paris'?",
                    "controller.yml:15:15: error: watches.main.branches: no branches; name at least one",
                    "controller.yml:16:15: error: watches.main.interval: expected a duration such as 90s, 10m, 1h30m, 14d, or a number of seconds, found 'soon'",
                ])
        }
    }

    func testAPipelineThatDoesNotLoadWithTheGivenParametersIsNamedAtTheParameters() {
        let checking = ControllerConfigLoader(pipelines: ["app-intents"]) { name, parameters, _ in
            parameters["scheme"] == nil ? nil : "--param scheme: no such parameter in \(name)"
        }
        XCTAssertThrowsError(
            try checking.load(
                yaml: "schedules:\n  s:\n    pipeline: app-intents\n    cron: '@daily'\n    parameters: {scheme: X}\n",
                file: "c.yml")
        ) { error in
            XCTAssertEqual(
                (error as? SpecErrors)?.problems.map(\.description),
                [
                    "c.yml:5:17: error: schedules.s.parameters: pipeline 'app-intents' does not load with these "
                        + "settings: --param scheme: no such parameter in app-intents"
                ])
        }
    }

    func testAnotherPartOfPipeReadsItsOwnSection() throws {
        var loader = self.loader
        var port: Int?
        loader.additionalSections["chatops"] = { document, node, path in
            guard let mapping = document.mapping(node, at: path) else { return }
            mapping.rejectUnknownKeys(allowed: ["port"])
            port = mapping.value("port").flatMap { document.integer($0, at: path.appending("port")) }
        }
        _ = try loader.load(yaml: "chatops: {port: 8080}\n", file: "c.yml")
        XCTAssertEqual(port, 8080)
        XCTAssertThrowsError(try loader.load(yaml: "chatops: {prot: 1}\n", file: "c.yml")) { error in
            XCTAssertEqual(
                (error as? SpecErrors)?.problems.map(\.description),
                ["c.yml:1:11: error: chatops.prot: unknown key; did you mean 'port'?"])
        }
        // Without the section's reader, the key is unknown.
        XCTAssertThrowsError(try self.loader.load(yaml: "chatops: {port: 1}\n", file: "c.yml"))
    }

    func testAnEmptyFileAndAYAMLSyntaxError() {
        XCTAssertThrowsError(try loader.load(yaml: "", file: "c.yml")) { error in
            XCTAssertEqual((error as? SpecErrors)?.problems.first?.message.hasPrefix("the file is empty"), true)
        }
        XCTAssertThrowsError(try loader.load(yaml: "schedules: [a\n", file: "c.yml")) { error in
            XCTAssertEqual((error as? SpecErrors)?.problems.first?.file, "c.yml")
            XCTAssertNotNil((error as? SpecErrors)?.problems.first?.mark)
        }
    }
}
