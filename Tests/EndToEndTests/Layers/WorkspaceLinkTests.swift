import Foundation
import PipeTestSupport
import XCTest

/// The checked-out commit is untrusted: a workspace that is a link, or passes through one, never uploads what the link
/// names, and a link inside the workspace travels as a link.
final class WorkspaceLinkTests: EmulatedHostTestCase {
    private let marker = "coordinator-secret-7d41c2"

    /// A folder of the coordinator's that a hostile branch would like synced to the Mac.
    private func makeSecrets() throws -> TemporaryDirectory {
        let secrets = try TemporaryDirectory(prefix: "pipe-e2e-secrets")
        try marker.write(to: secrets.appending("id_ed25519"), atomically: true, encoding: .utf8)
        let example = RepositoryPaths.root.appendingPathComponent("examples/reader-app").path
        try shellCommand(
            "cp -R \(quoted(example))/. \(quoted(secrets.url.path))/ && rm -rf \(quoted(secrets.url.path))/.build")
        return secrets
    }

    func testAWorkspaceThatIsALinkIsRefusedBeforeAnythingIsSent() throws {
        let project = try makeProject()
        let secrets = try makeSecrets()
        defer { secrets.remove() }
        try project.shell(
            "rm -rf examples/reader-app && ln -s \(quoted(secrets.url.path)) examples/reader-app"
                + " && " + commitEverything("workspace as a link"))
        let result = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(result.exitCode, 2, result.combined)
        XCTAssertTrue(
            result.combined.contains("passes through a symbolic link at commit"),
            "the refusal says why:\n\(result.combined)")
        XCTAssertTrue(result.combined.contains("'examples/reader-app' -> '\(secrets.url.path)'"), result.combined)
        XCTAssertTrue(result.combined.contains("make `repository.workspace`"), result.combined)
        XCTAssertEqual(try filesOnTheHostHoldingTheMarker(), [], "the coordinator's folder reached the host")
    }

    func testAWorkspaceReachedThroughALinkIsRefused() throws {
        let project = try makeProject()
        let secrets = try makeSecrets()
        defer { secrets.remove() }
        try project.shell(
            "mv examples examples-real && ln -s \(quoted(secrets.url.path))/.. examples"
                + " && " + commitEverything("a folder as a link"))
        let result = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(result.exitCode, 2, result.combined)
        XCTAssertTrue(result.combined.contains("'examples' -> "), result.combined)
    }

    func testALinkInsideTheWorkspaceIsUploadedAsALinkNeverFollowed() throws {
        let project = try makeProject()
        let secrets = try makeSecrets()
        defer { secrets.remove() }
        let linkTarget = secrets.appending("id_ed25519").path
        // The emulated hosts' account outlives a test: a name of this test's own finds this test's link.
        let linkName = "key-link-\(UUID().uuidString.prefix(8))"
        try project.shell(
            "ln -s \(quoted(linkTarget)) examples/reader-app/\(linkName)"
                + " && " + commitEverything("a link inside"))
        let result = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(result.exitCode, 0, result.combined)
        // The host's disk is this machine's: what `find` lists there is read here (a Mac has no `readlink` on PATH).
        let home = try host.inspect("pwd").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let links = try host.inspect("find . -name \(linkName) -type l").stdout.split(separator: "\n")
        XCTAssertFalse(links.isEmpty, "no link named \(linkName) on the host")
        for link in links {
            XCTAssertEqual(
                try FileManager.default.destinationOfSymbolicLink(atPath: home + "/" + link.dropFirst(2)), linkTarget)
        }
        XCTAssertEqual(try filesOnTheHostHoldingTheMarker(), [], "the link's target was uploaded")
    }

    private func commitEverything(_ message: String) -> String {
        "git add -A && git -c user.email=e2e@pipe.test -c user.name=e2e commit -q -m \(quoted(message))"
    }

    /// Files under the host account's home that hold the marker, searched here: the emulated host's disk is this
    /// machine's, and a Mac's tool set has no `grep` on PATH.
    private func filesOnTheHostHoldingTheMarker() throws -> [String] {
        let home = try host.inspect("pwd").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertFalse(home.isEmpty)
        var holding: [String] = []
        let files = FileManager.default.enumerator(atPath: home)
        while let path = files?.nextObject() as? String {
            let url = URL(fileURLWithPath: home).appendingPathComponent(path)
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true,
                let data = try? Data(contentsOf: url), data.range(of: Data(marker.utf8)) != nil
            else { continue }
            holding.append(path)
        }
        return holding
    }

    private func shellCommand(_ command: String) throws {
        let result = try CommandRunner.shell(command)
        XCTAssertEqual(result.exitCode, 0, result.combined)
    }

    private func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
}
