import PipeCore
import PipeForge
import XCTest

/// A gate's state as each forge takes it, its context and its description.
final class ForgeGateReportTests: XCTestCase {
    func testEachStateMapsToEachForgesStateNames() {
        let expected: [(github: String, gitlab: String)] = [
            ("pending", "pending"), ("pending", "running"), ("pending", "pending"), ("success", "success"),
            ("failure", "failed"), ("error", "failed"), ("error", "failed"), ("error", "failed"), ("error", "failed"),
            ("error", "canceled"), ("error", "canceled"),
        ]
        XCTAssertEqual(ForgeFixtures.everyState.count, expected.count)
        for (state, names) in zip(ForgeFixtures.everyState, expected) {
            let report = ForgeFixtures.report(state)
            XCTAssertEqual(report.statusState(for: .github), names.github, "\(state)")
            XCTAssertEqual(report.statusState(for: .gitea), names.github, "\(state): Gitea takes GitHub's names")
            XCTAssertEqual(report.statusState(for: .gitlab), names.gitlab, "\(state)")
        }
    }

    func testDescriptionsAreShortAndSpecific() {
        let headlines = ForgeFixtures.everyState.map { ForgeFixtures.report($0).headline }
        XCTAssertEqual(
            headlines,
            [
                "queued", "running", "awaiting sign-off: shortcuts", "19 tests passed",
                "2 of 19 tests failed in intent", "host-config: scheme Reader is not shared",
                "infrastructure: host mac-1 unreachable", "plugin-error: pipe-layer-lint exited 70",
                "refused before any layer: SIM_UDID is not set", "cancelled", "superseded by 9f8e7d6",
            ])
        let build = ForgeFixtures.report(.appFailed(.init(layer: "unit", reason: "build-failed: Reader.swift:12")))
        XCTAssertEqual(build.headline, "unit: build-failed: Reader.swift:12")
        let one = ForgeFixtures.report(.appFailed(.init(layer: "unit", failedTests: 1, reason: "")))
        XCTAssertEqual(one.headline, "1 test failed in unit")
        XCTAssertEqual(ForgeFixtures.report(.passed(tests: nil)).headline, "passed")
    }

    func testContextsOnePerPipelineAndGateAndAManualOneApart() {
        var report = ForgeFixtures.report(.running, gate: .release)
        XCTAssertEqual(report.context, "pipe/app-intents/release")
        XCTAssertEqual(ForgeFixtures.report(.running).context, "pipe/app-intents/merge")
        report.isManual = true
        XCTAssertEqual(report.context, "pipe/app-intents/release/manual")
        XCTAssertEqual(report.headline, "manual run: running")
    }

    func testDescriptionsAreCutOnACharacterBoundaryWithAnEllipsis() {
        // Flags are two scalars each: a cut may not split one.
        let reason = String(repeating: "🇯🇵", count: 200)
        let report = ForgeFixtures.report(.couldNotJudge(.hostConfig, reason: reason))
        let github = report.description(for: .github)
        XCTAssertLessThanOrEqual(github.unicodeScalars.count, 140)
        XCTAssertTrue(github.hasSuffix("…"))
        XCTAssertTrue(github.hasPrefix("host-config: 🇯🇵"))
        XCTAssertEqual(github.dropLast().dropFirst("host-config: ".count).filter { $0 != "🇯🇵" }, "")
        let gitlab = report.description(for: .gitlab)
        XCTAssertLessThanOrEqual(gitlab.unicodeScalars.count, 255)
        XCTAssertGreaterThan(gitlab.unicodeScalars.count, 250)
        XCTAssertTrue(gitlab.hasSuffix("…"))
        let fits = ForgeFixtures.report(.couldNotJudge(.hostConfig, reason: String(repeating: "x", count: 127)))
        XCTAssertEqual(fits.description(for: .github).count, 140, "exactly at the limit is not cut")
        XCTAssertFalse(fits.description(for: .github).hasSuffix("…"))
    }

    func testAReasonIsOneLineOfPlainText() {
        let report = ForgeFixtures.report(
            .couldNotJudge(.hostConfig, reason: "scheme\n\u{1B}[2JReader\u{202E}   is\tnot shared\r\n"))
        XCTAssertEqual(report.headline, "host-config: scheme [2JReader is not shared")
    }

    func testTheTargetURLOnlyWithABaseURLAndARunID() {
        let report = ForgeFixtures.report(.running)
        XCTAssertNil(report.targetURL(baseURL: nil, for: .github))
        XCTAssertNil(report.targetURL(baseURL: "", for: .github))
        XCTAssertEqual(
            report.targetURL(baseURL: "https://pipe.example/", for: .github),
            "https://pipe.example/runs/20261202-170501-7f3a")
        var queued = report
        queued.runID = nil
        XCTAssertNil(queued.targetURL(baseURL: "https://pipe.example", for: .github))
        let long = "https://pipe.example/" + String(repeating: "a", count: 240)
        XCTAssertNil(report.targetURL(baseURL: long, for: .gitlab), "GitLab refuses a target_url over 255")
        XCTAssertNotNil(report.targetURL(baseURL: long, for: .github))
        let body = try? ForgeAPI(repository: ForgeFixtures.repository(.github)).createStatus(
            report, sha: ForgeFixtures.sha)
        XCTAssertNil(body?.body?["target_url"], "left out without a base URL")
        let gitlab = ForgeAPI(repository: ForgeFixtures.repository(.gitlab))
        XCTAssertEqual(
            try gitlab.createStatus(report, sha: ForgeFixtures.sha, branch: "feature/x").body?["ref"],
            .string("feature/x"))
        XCTAssertNil(
            try gitlab.createStatus(report, sha: ForgeFixtures.sha, branch: String(repeating: "b", count: 256)).body?[
                "ref"])
        XCTAssertNil(
            try ForgeAPI(repository: ForgeFixtures.repository(.github)).createStatus(
                report, sha: ForgeFixtures.sha, branch: "feature/x"
            ).body?["ref"], "GitHub statuses take no ref")
    }
}
