import Foundation
import PipeTestSupport
import XCTest

/// `pipe hosts check` and `pipe hosts list` over a pool of three emulated Macs.
final class HostsCheckTests: HostsEndToEndTests {
    func testAHostThatIsDownIsUnusableNamingWhyAndOutOfRotationUntilItPassesAgain() throws {
        stop("mac-2")
        let check = try project.pipe(["hosts", "check"])
        XCTAssertEqual(check.exitCode, 3, check.combined)
        let table = check.stdout
        assertContains(
            row("mac-1", in: table) ?? "", ["usable", "Xcode 16.2 (16C5032a)", "iOS 17.5 (4), iOS 18.2 (4)"])
        assertContains(row("mac-3", in: table) ?? "", ["usable", "Xcode 16.3 (16E140)", "iOS 18.4 (3)"])
        assertContains(row("mac-2", in: table) ?? "", ["UNUSABLE", "127.0.0.1:\(host("mac-2").port)"])
        assertContains(
            table,
            [
                "mac-2: unreachable: cannot connect to 127.0.0.1:\(host("mac-2").port) (Connection refused)",
                "mac-1: ED25519 host key \(try fingerprint(ofHostKeyOf: "mac-1")) trusted; logged in as",
                "mac-3: warning: 1 simulator is unavailable",
            ])
        XCTAssertEqual(check.stderr, "error: 1 of 3 hosts unusable: mac-2 (unreachable); see above\n")

        // The same facts as JSON, for scripts.
        let results = try XCTUnwrap(
            try JSONSerialization.jsonObject(
                with: Data(try project.pipe(["hosts", "check", "--json", "mac-1", "mac-2"]).stdout.utf8))
                as? [[String: Any]])
        XCTAssertEqual(results.map { $0["name"] as? String }, ["mac-1", "mac-2"])
        let up = results[0]
        XCTAssertEqual(up["usable"] as? Bool, true)
        XCTAssertEqual(up["authenticated"] as? Bool, true)
        XCTAssertEqual((up["xcode"] as? [String: Any])?["build"] as? String, "16C5032a")
        let key = try XCTUnwrap(up["hostKey"] as? [String: Any])
        XCTAssertEqual(key["fingerprint"] as? String, try fingerprint(ofHostKeyOf: "mac-1"))
        XCTAssertEqual(key["status"] as? String, "trusted")
        let runtimes = try XCTUnwrap(up["runtimes"] as? [[String: Any]])
        XCTAssertEqual(runtimes.map { $0["name"] as? String }, ["iOS 16.4", "iOS 17.5", "iOS 18.2"])
        XCTAssertEqual(runtimes.map { $0["availableSimulators"] as? Int }, [0, 4, 4])
        XCTAssertEqual((up["simulators"] as? [String: Any])?["unavailable"] as? Int, 1)
        let disk = try XCTUnwrap(up["disk"] as? [String: Any])
        XCTAssertGreaterThan(disk["freeBytes"] as? Int ?? 0, 1_000_000)
        XCTAssertTrue((disk["folder"] as? String ?? "").hasPrefix("/"), "the nearest existing folder, absolute")
        let samples = try XCTUnwrap(up["latencySamples"] as? [Double])
        XCTAssertEqual(samples.count, 5)
        let median = try XCTUnwrap(up["latencySeconds"] as? Double)
        XCTAssertEqual(median, samples.sorted()[2])
        XCTAssertGreaterThan(median, 0)
        let down = results[1]
        XCTAssertEqual(down["usable"] as? Bool, false)
        XCTAssertEqual(down["reachable"] as? Bool, false)
        XCTAssertEqual((down["problems"] as? [[String: Any]])?.first?["stage"] as? String, "unreachable")
        XCTAssertTrue(down["xcode"] is NSNull)

        // Every check was recorded: mac-2 is out of rotation, with the reason.
        var list = try XCTUnwrap(try json(["hosts", "list", "--json"]) as? [[String: Any]])
        var health = try XCTUnwrap(list.first { $0["name"] as? String == "mac-2" }?["health"] as? [String: Any])
        XCTAssertEqual(health["usable"] as? Bool, false)
        XCTAssertEqual(health["consecutiveFailures"] as? Int, 2)
        XCTAssertTrue((health["problem"] as? String ?? "").hasPrefix("unreachable: cannot connect"), "\(health)")
        let text = try project.pipe(["hosts", "list"])
        assertContains(row("mac-2", in: text.stdout) ?? "", ["2  ", "UNUSABLE", "out of rotation: unreachable"])
        assertContains(row("mac-3", in: text.stdout) ?? "", ["3", "xcode=16.3", "usable"])

        // Back up: the next check that passes puts it back in rotation.
        try restart("mac-2")
        let again = try project.pipe(["hosts", "check", "mac-2"])
        XCTAssertEqual(again.exitCode, 0, again.combined)
        assertContains(
            row("mac-2", in: again.stdout) ?? "", ["usable", "Xcode 15.4 (15F31d)", "iOS 17.2 (2), iOS 17.5 (2)"])
        list = try XCTUnwrap(try json(["hosts", "list", "--json"]) as? [[String: Any]])
        health = try XCTUnwrap(list.first { $0["name"] as? String == "mac-2" }?["health"] as? [String: Any])
        XCTAssertEqual(health["usable"] as? Bool, true)
        XCTAssertEqual(health["consecutiveFailures"] as? Int, 0)
    }

    func testAnUnknownKeyAWrongLoginKeyAndAMislabelledXcodeAreEachNamed() throws {
        let emptyKnownHosts = project.url.appendingPathComponent(".pipe/known_hosts")
        try Data().write(to: emptyKnownHosts)
        try writeHostsFile(
            knownHosts: ["mac-1": emptyKnownHosts], identities: ["mac-2": host("mac-3").identityFile],
            labels: ["mac-3": ["xcode": "16.2"]])
        let check = try project.pipe(["hosts", "check"])
        XCTAssertEqual(check.exitCode, 3, check.combined)
        XCTAssertEqual(
            check.stderr, "error: 2 of 3 hosts unusable: mac-1 (host-key), mac-2 (authentication); see above\n")
        assertContains(
            check.stdout,
            [
                "mac-1: ED25519 host key \(try fingerprint(ofHostKeyOf: "mac-1")) unknown",
                "mac-1: host-key: The authenticity of host '[127.0.0.1]:\(host("mac-1").port)' can't be established.",
                "trust it with `pipe hosts trust mac-1`",
                "mac-2: authentication:",
                "mac-3: warning: its label xcode=16.2 does not match the selected Xcode 16.3 (16E140)",
            ])
        XCTAssertNotNil(row("mac-3", in: check.stdout)?.range(of: "usable"), "a label mismatch is a warning")
        // The refused host ran nothing: no login was even tried.
        XCTAssertFalse(host("mac-1").sshdLog().contains("Accepted publickey"), host("mac-1").sshdLog())
    }
}
