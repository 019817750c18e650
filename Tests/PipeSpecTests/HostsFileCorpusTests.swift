import Foundation
import PipeCore
import PipeSpec
import PipeTestSupport
import XCTest

/// Every string of the injection corpus as a host's name, login, work folder or label: loaded as that exact value, or
/// refused with a positioned error; a name is never one a path or an option could be made of.
final class HostsFileCorpusTests: XCTestCase {
    private func load(_ field: String, _ value: String) -> Result<[HostConfig], SpecErrors> {
        // JSON is YAML: the value arrives exactly, whatever it holds.
        let quoted = String(decoding: (try? JSONSerialization.data(withJSONObject: [value])) ?? Data(), as: UTF8.self)
        let entries: [String: String] = [
            "name": "mac-1", "address": "127.0.0.1", "user": "pipe", "known-hosts": "/tmp/known_hosts",
            "work-dir": "pipe-work",
        ]
        var lines = ["hosts:", "  - identity-file: /tmp/id"]
        for (key, standard) in entries.sorted(by: { $0.key < $1.key }) {
            lines.append("    \(key): " + (key == field ? String(quoted.dropFirst().dropLast()) : "\"\(standard)\""))
        }
        if field == "labels" { lines.append("    labels: {team: " + String(quoted.dropFirst().dropLast()) + "}") }
        do {
            return .success(
                try HostsFileLoader.load(
                    yaml: lines.joined(separator: "\n") + "\n", file: ".pipe/hosts.yml",
                    baseDirectory: URL(fileURLWithPath: "/")))
        } catch {
            return .failure(error)
        }
    }

    func testEveryCorpusStringIsTheValueOrAPlacedRefusal() {
        var refusedNames = 0
        for value in InjectionCorpus.strings where value.utf8.count < 1_000 {
            for field in ["name", "user", "work-dir", "labels"] {
                switch load(field, value) {
                case .success(let hosts):
                    let host = hosts[0]
                    let loaded =
                        field == "name"
                        ? host.name
                        : field == "user"
                            ? host.user
                            : field == "work-dir" ? host.workDirectory : host.labels["team"]
                    XCTAssertEqual(loaded, value, "\(field) \(value.prefix(30))")
                    if field == "name" {
                        XCTAssertFalse(value.hasPrefix("-") || value.contains("/") || value == "..", value)
                    }
                case .failure(let errors):
                    if field == "name" { refusedNames += 1 }
                    XCTAssertFalse(errors.problems.isEmpty)
                    for problem in errors.problems {
                        XCTAssertTrue(
                            problem.description.hasPrefix(".pipe/hosts.yml:"),
                            "an unplaced refusal for \(field) \(value.prefix(30)): \(problem.description)")
                    }
                }
            }
        }
        XCTAssertGreaterThan(refusedNames, 20, "hostile names were loaded")
    }
}
