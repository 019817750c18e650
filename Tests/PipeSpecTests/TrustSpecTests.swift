import Foundation
import PipeCore
import PipeSpec
import PipeTestSupport
import XCTest

/// `trust:` in the hosts file and `trusted-refs:` in the project file, with positioned errors like every key.
final class TrustSpecTests: XCTestCase {
    private func hosts(_ entries: String) throws(SpecErrors) -> [HostConfig] {
        try HostsFileLoader.load(
            yaml: "hosts:\n" + entries, file: ".pipe/hosts.yml", baseDirectory: URL(fileURLWithPath: "/p/.pipe"))
    }

    private func errors<T>(_ load: () throws -> T) -> [String] {
        do {
            _ = try load()
            return []
        } catch {
            return "\(error)".components(separatedBy: "\n")
        }
    }

    func testEachHostHasATrustLevelTrustedByDefault() throws {
        let loaded = try hosts(
            """
              - { name: a, address: h, user: u, identity-file: id, known-hosts: kh }
              - { name: b, address: h, user: u, identity-file: id, known-hosts: kh, trust: untrusted }
              - { name: c, address: h, user: u, identity-file: id, known-hosts: kh, trust: release }
              - { name: d, address: h, user: u, identity-file: id, known-hosts: kh, trust: trusted }
            """)
        XCTAssertEqual(loaded.map(\.trust), [.trusted, .untrusted, .release, .trusted])
    }

    func testAnUnknownTrustLevelIsRefusedWhereItIsWritten() {
        XCTAssertEqual(
            errors {
                try hosts(
                    """
                      - name: a
                        address: h
                        user: u
                        identity-file: id
                        known-hosts: kh
                        trust: relase
                    """)
            },
            [
                ".pipe/hosts.yml:7:12: error: hosts[0].trust: 'relase' is not one of 'untrusted', 'trusted' or "
                    + "'release'; did you mean 'release'?"
            ])
    }

    func testEveryInjectionStringIsRefusedAsATrustLevel() {
        for value in InjectionCorpus.strings where !TrustLevel.allCases.map(\.rawValue).contains(value) {
            let quoted = Self.yamlDoubleQuoted(value)
            let problems = errors {
                try hosts(
                    "  - { name: a, address: h, user: u, identity-file: id, known-hosts: kh, trust: \(quoted) }\n")
            }
            // Refused as a trust level, not merely as YAML; the message may span lines where the value does.
            let text = problems.joined(separator: "\n")
            XCTAssertTrue(
                text.hasPrefix(".pipe/hosts.yml:2:80: error: hosts[0].trust: ")
                    && text.contains("is not one of 'untrusted', 'trusted' or 'release'"),
                "\(value.debugDescription): \(text)")
        }
    }

    /// `text` as a YAML double-quoted scalar: control characters as `\xNN`.
    private static func yamlDoubleQuoted(_ text: String) -> String {
        let escaped = text.unicodeScalars.map { scalar -> String in
            if scalar == "\"" || scalar == "\\" { return "\\" + String(scalar) }
            if scalar.value < 0x20 || scalar.value == 0x7F { return String(format: "\\x%02X", scalar.value) }
            return String(scalar)
        }
        return "\"" + escaped.joined() + "\""
    }

    func testTrustedRefsAreReadFromTheProjectFile() throws {
        let config = try ProjectFileLoader.load(
            yaml: "trusted-refs: [main, \"release/*\", \"refs/tags/v*\"]\n", file: "project.yml")
        XCTAssertEqual(config.trustedRefs.map(\.text), ["main", "release/*", "refs/tags/v*"])
        XCTAssertEqual(
            try ProjectFileLoader.load(yaml: "trusted-refs: main\n", file: "project.yml").trustedRefs.count, 1)
        XCTAssertEqual(try ProjectFileLoader.load(yaml: "", file: "project.yml"), ProjectConfig())
    }

    func testAProjectWithoutTheFileHasNoProtectedRefs() throws {
        let folder = try TemporaryDirectory(prefix: "pipe-project")
        defer { folder.remove() }
        XCTAssertEqual(try ProjectFileLoader.load(projectDirectory: folder.url), ProjectConfig())
        try "trusted-refs: [main]\n".write(
            to: folder.url.appendingPathComponent("project.yml"), atomically: true, encoding: .utf8)
        XCTAssertEqual(
            try ProjectFileLoader.load(projectDirectory: folder.url).trustedRefs, [TrustedRefPattern("main")])
    }

    func testProjectFileProblemsAreReportedAtOnceWithPositions() {
        XCTAssertEqual(
            errors {
                try ProjectFileLoader.load(
                    yaml: """
                        trusted-ref: [main]
                        trusted-refs:
                          - main
                          - ../x
                          - "a b"
                        """, file: "project.yml")
            },
            [
                "project.yml:1:1: error: trusted-ref: unknown key; did you mean 'trusted-refs'?",
                "project.yml:4:5: error: trusted-refs[1]: '../x' is not a ref name: no '.' or '..' components; write a "
                    + "branch (`main`, `release/*`) or a full ref pattern (`refs/tags/v*`)",
                "project.yml:5:5: error: trusted-refs[2]: 'a b' is not a ref name: no spaces, control characters or "
                    + "'\\'; write a branch (`main`, `release/*`) or a full ref pattern (`refs/tags/v*`)",
            ])
    }
}
