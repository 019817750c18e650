import Foundation
import PipeCore
import PipeSpec
import XCTest

final class HostsFileLoaderTests: XCTestCase {
    private let hostsFolder = SpecFixtures.folder.appendingPathComponent("hosts")

    func testHostsFileLoadsWithDefaultsAndResolvedPaths() throws {
        let hosts = try HostsFileLoader.load(
            path: hostsFolder.appendingPathComponent("hosts.yml"), environment: ["HOME": "/home/ci"])
        let folder = hostsFolder.standardizedFileURL.path
        let parent = hostsFolder.deletingLastPathComponent().standardizedFileURL.path

        XCTAssertEqual(
            hosts,
            [
                HostConfig(
                    name: "mac-1", address: "127.0.0.1", port: 2222, user: "pipe",
                    identityFile: "\(folder)/keys/id_ed25519", useAgent: false, knownHostsFile: "\(folder)/known_hosts",
                    labels: ["xcode": "16.2", "arch": "arm64"], capacity: 2, workDirectory: "/Users/pipe/pipe-work",
                    xcodes: [
                        "16.2": "/Applications/Xcode-16.2.app/Contents/Developer",
                        "15.4": "/Applications/Xcode-15.4.app/Contents/Developer",
                    ], connectTimeoutSeconds: 30, transferSessions: 2, uploadCompression: .gzip),
                HostConfig(
                    name: "mac-2", address: "mac-2.example.net", port: 22, user: "ci",
                    identityFile: "/home/ci/.ssh/id_ecdsa", identityPassphraseEnvironment: "MAC2_KEY_PASSPHRASE",
                    useAgent: true, knownHostsFile: "\(parent)/shared/known_hosts", labels: [:], capacity: 1,
                    workDirectory: "pipe-work", xcodes: [:], connectTimeoutSeconds: 15),
            ])
    }

    func testRelativePathsFollowTheHostsFileNotTheWorkingDirectory() throws {
        let hosts = try HostsFileLoader.load(
            yaml: """
                hosts:
                  - { name: a, address: h, user: u, identity-file: id, known-hosts: ./kh/../known_hosts,
                      identity-passphrase-file: /etc/pipe/pass }
                """, file: ".pipe/hosts.yml", baseDirectory: URL(fileURLWithPath: "/srv/project/.pipe"))
        XCTAssertEqual(hosts.first?.identityFile, "/srv/project/.pipe/id")
        XCTAssertEqual(hosts.first?.knownHostsFile, "/srv/project/.pipe/known_hosts")
        XCTAssertEqual(hosts.first?.identityPassphraseFile, "/etc/pipe/pass")
    }

    func testEveryHostProblemIsReportedAtOnce() {
        let url = hostsFolder.appendingPathComponent("bad-hosts.yml")
        XCTAssertThrowsError(try HostsFileLoader.load(path: url, environment: [:])) { error in
            let file = url.relativePath
            XCTAssertEqual(
                (error as? SpecErrors)?.description.components(separatedBy: "\n"),
                [
                    "\(file):2:5: error: hosts[0]: missing required key 'known-hosts'; an OpenSSH known_hosts file "
                        + "holding the host's key (host keys are always checked)",
                    "\(file):4:11: error: hosts[0].port: 70000 is out of range: expected a TCP port, 1 to 65535",
                    "\(file):7:5: error: hosts[0].known-host: unknown key; did you mean 'known-hosts'?",
                    "\(file):8:15: error: hosts[0].capacity: 0 is out of range: expected the number of runs the host "
                        + "takes at once, at least 1",
                    "\(file):9:23: error: hosts[0].xcodes.16.2: 'Xcode.app' is not an absolute path; give the Xcode's "
                        + "DEVELOPER_DIR, e.g. /Applications/Xcode-16.2.app/Contents/Developer",
                    "\(file):10:5: error: hosts[1]: no way to log in: set 'identity-file:' (an ed25519 or ECDSA private "
                        + "key) or 'use-agent: true'",
                    "\(file):10:11: error: hosts[1].name: another host is already named 'mac-1' (line 2); host names "
                        + "must be unique",
                    "\(file):11:14: error: hosts[1].address: must not be empty",
                    "\(file):12:11: error: hosts[1].port: expected an integer, found the quoted text \"22\"; remove the "
                        + "quotes",
                    "\(file):14:16: error: hosts[1].use-agent: expected a boolean (true or false), found the quoted "
                        + "text \"yes\"; remove the quotes",
                    "\(file):16:22: error: hosts[1].connect-timeout: expected a duration such as 90s, 10m, 1h30m, 14d, or a "
                        + "number of seconds, found 'forever'",
                    "\(file):17:5: error: hosts[2]: no way to log in: set 'identity-file:' (an ed25519 or ECDSA "
                        + "private key) or 'use-agent: true'",
                    "\(file):17:11: error: hosts[2].name: 'mac 3' cannot name a host (it appears in folder names): use "
                        + "letters, digits, '.', '_' and '-', starting with a letter or digit",
                    "\(file):21:30: error: hosts[2].identity-passphrase-env: give the passphrase either by "
                        + "'identity-passphrase-env:' or by 'identity-passphrase-file:', not both",
                    "\(file):21:30: error: hosts[2].identity-passphrase-env: a passphrase unlocks 'identity-file:', "
                        + "which is not set; add it or remove the passphrase",
                    "\(file):23:24: error: hosts[2].transfer-sessions: 3 is out of range: expected 1 (one session) "
                        + "or 2 (a big download split across two at once)",
                    "\(file):24:18: error: hosts[2].compression: 'zip' is not one of 'auto', 'none', 'gzip' or 'zstd'; did "
                        + "you mean 'gzip'?",
                ])
        }
    }

    func testFileShapeErrors() {
        func errors(_ yaml: String) -> [String] {
            do {
                _ = try HostsFileLoader.load(
                    yaml: yaml, file: ".pipe/hosts.yml", baseDirectory: URL(fileURLWithPath: "/"))
                XCTFail("expected errors")
                return []
            } catch {
                return error.problems.map(\.description)
            }
        }
        XCTAssertEqual(errors(""), [".pipe/hosts.yml:1:1: error: the file is empty; list the Mac hosts under 'hosts:'"])
        XCTAssertEqual(errors("hosts: []\n"), [".pipe/hosts.yml:1:8: error: hosts: no hosts; add at least one"])
        XCTAssertEqual(
            errors("hosts:\n  mac-1: { address: x }\n"),
            [
                ".pipe/hosts.yml:2:3: error: hosts: expected a list of hosts, found a mapping; start each host with "
                    + "'- name:'"
            ])
        XCTAssertEqual(
            errors("host:\n  - name: a\n"),
            [
                ".pipe/hosts.yml:1:1: error: host: unknown key; did you mean 'hosts'?",
                ".pipe/hosts.yml:1:1: error: missing required key 'hosts'; list the Mac hosts under 'hosts:'",
            ])
        XCTAssertEqual(
            errors("hosts:\n  - name: a\n    name: b\n"),
            [
                ".pipe/hosts.yml:2:5: error: hosts[0]: missing required key 'address'; the host's DNS name or IP address",
                ".pipe/hosts.yml:2:5: error: hosts[0]: missing required key 'user'; the login name on the Mac",
                ".pipe/hosts.yml:2:5: error: hosts[0]: missing required key 'known-hosts'; an OpenSSH known_hosts file "
                    + "holding the host's key (host keys are always checked)",
                ".pipe/hosts.yml:2:5: error: hosts[0]: no way to log in: set 'identity-file:' (an ed25519 or ECDSA "
                    + "private key) or 'use-agent: true'",
                ".pipe/hosts.yml:3:5: error: hosts[0].name: duplicate key (first written at line 2, column 5); keep "
                    + "only one",
            ])
    }

    func testTildeWithoutHomeIsAnError() {
        XCTAssertThrowsError(
            try HostsFileLoader.load(
                yaml: "hosts: [{ name: a, address: h, user: u, identity-file: ~/.ssh/id, known-hosts: kh }]\n",
                file: "hosts.yml", baseDirectory: URL(fileURLWithPath: "/p"), environment: [:])
        ) { error in
            XCTAssertEqual(
                (error as? SpecErrors)?.description,
                "hosts.yml:1:56: error: hosts[0].identity-file: '~/.ssh/id' starts with '~' but HOME is not set; write "
                    + "the full path")
        }
    }

    func testMissingHostsFileNamesThePath() {
        XCTAssertThrowsError(try HostsFileLoader.load(path: URL(fileURLWithPath: "no/such/hosts.yml"))) { error in
            XCTAssertEqual(
                (error as? SpecErrors)?.description, "no/such/hosts.yml: error: no such file; check the path")
        }
    }
}
