import Foundation
import PipeCore
import XCTest

/// Signing material goes only to `release` hosts: a pipeline whose layer receives a `type: file` secret may use
/// release hosts alone, and is refused with what to do when it names none.
final class SigningHostRuleTests: XCTestCase {
    private func host(_ name: String, _ trust: TrustLevel) -> HostConfig {
        HostConfig(name: name, address: "10.0.0.1", user: "ci", knownHostsFile: "k", trust: trust)
    }

    private func pipeline(archiveSecrets: [String]) -> Pipeline {
        Pipeline(
            name: "release", sourcePath: "pipelines/release.yml", repository: RepositorySpec(),
            layers: [
                LayerSpec(name: "logic", plugin: "xcodebuild-test", secrets: ["API_TOKEN"]),
                LayerSpec(name: "archive", plugin: "shell", secrets: archiveSecrets),
            ],
            secrets: [
                "API_TOKEN": .environment("API_TOKEN"), "DIST_P12": .binaryFile(".pipe/secrets/dist.p12"),
                "P12_PASSWORD": .file(".pipe/secrets/p12-password"),
            ])
    }

    func testOneLineSecretsAreNoSigningMaterial() throws {
        let plain = pipeline(archiveSecrets: ["P12_PASSWORD"])
        XCTAssertTrue(SigningHostRule.signingLayers(of: plain).isEmpty)
        let hosts = [host("mac-1", .trusted), host("mac-2", .untrusted)]
        XCTAssertEqual(try SigningHostRule.restrict(hosts, for: plain, hosts: hosts).map(\.name), ["mac-1", "mac-2"])
    }

    func testALayerWithAFileSecretKeepsOnlyReleaseHosts() throws {
        let signing = pipeline(archiveSecrets: ["DIST_P12", "P12_PASSWORD"])
        let found = SigningHostRule.signingLayers(of: signing)
        XCTAssertEqual(found.map(\.layer), ["archive"])
        XCTAssertEqual(found.first?.secrets, ["DIST_P12"])
        let hosts = [host("mac-1", .trusted), host("mac-r", .release), host("mac-u", .untrusted)]
        XCTAssertEqual(try SigningHostRule.restrict(hosts, for: signing, hosts: hosts).map(\.name), ["mac-r"])
    }

    func testWithoutAReleaseCandidateTheRunIsRefusedWithWhatToDo() {
        let signing = pipeline(archiveSecrets: ["DIST_P12"])
        let trusted = [host("mac-1", .trusted)]
        XCTAssertThrowsError(try SigningHostRule.restrict(trusted, for: signing, hosts: trusted)) { error in
            XCTAssertEqual(
                "\(error)",
                "layer archive receives signing material (`DIST_P12`, type: file), which only `release` hosts may "
                    + "hold; host mac-1 is `trusted`: mark a host `trust: release` in the hosts file (it then runs "
                    + "only commits reachable from project.yml's `trusted-refs:`)")
        }
        let all = trusted + [host("mac-r", .release)]
        XCTAssertThrowsError(try SigningHostRule.restrict(trusted, for: signing, hosts: all)) { error in
            XCTAssertTrue("\(error)".hasSuffix("choose a release host (mac-r) with the pipeline's `hosts:` or --host"))
        }
    }
}
