import Foundation
import PipeCore
import PipeForge
import PipeTestSupport
import XCTest

final class ForgeSecretsTests: XCTestCase {
    func forge(_ kind: ForgeKind, secret: SecretSource?, signing: SecretSource? = nil) -> ForgeConfig {
        ForgeConfig(
            name: "f", kind: kind, apiURL: URL(fileURLWithPath: "/"), repository: "a/b", token: nil,
            webhook: WebhookEndpointConfig(path: "/hooks/f", secret: secret, signingToken: signing))
    }

    func testAVerifierIsMadeFromTheSecretsTheConfigPointsAt() throws {
        let folder = try TemporaryDirectory(prefix: "forge-secrets")
        defer { folder.remove() }
        let vector = ForgeContractFiles.root.appendingPathComponent("gitlab/webhooks/signature-vector")
        try FileManager.default.createDirectory(at: folder.appending("secrets"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: vector.appendingPathComponent("signing-token.txt"), to: folder.appending("secrets/signing"))
        let secrets = ForgeSecrets(
            environment: ["HOOK_TOKEN": "forge-contract-pack-test-secret"], projectDirectory: folder.url)
        let verifier = try secrets.webhookVerifier(
            for: forge(.gitlab, secret: .environment("HOOK_TOKEN"), signing: .file("secrets/signing")),
            now: { Date(timeIntervalSince1970: 1_744_578_123) })
        let headers = try ["X-Gitlab-Token", "webhook-id", "webhook-timestamp", "webhook-signature"].map {
            WebhookRequest.Header($0, try XCTUnwrap(ForgeContractFiles.expectedHeader(.gitlab, $0)))
        }
        let body = try ForgeContractFiles.bytes("gitlab/webhooks/signature-vector/payload.json")
        XCTAssertNoThrow(try verifier.verify(WebhookRequest(path: "/hooks/f", headers: headers, body: body)))
    }

    func testMissingEmptyAndMultiLineSecretsAreNamedWithoutTheirValue() throws {
        let folder = try TemporaryDirectory(prefix: "forge-secrets")
        defer { folder.remove() }
        try "line one\nline two\n".write(to: folder.appending("two-lines"), atomically: true, encoding: .utf8)
        let secrets = ForgeSecrets(environment: ["EMPTY": ""], projectDirectory: folder.url)
        for (source, expected) in [
            (SecretSource.environment("UNSET"), "forges.f.webhook.secret: the environment variable UNSET is not set"),
            (.environment("EMPTY"), "forges.f.webhook.secret: the environment variable EMPTY is empty"),
            (.file("missing"), "forges.f.webhook.secret: cannot read the file \(folder.appending("missing").path)"),
            (.file("two-lines"), "forges.f.webhook.secret: the file two-lines holds a line break"),
        ] {
            XCTAssertThrowsError(try secrets.webhookVerifier(for: forge(.github, secret: source))) { error in
                XCTAssertTrue("\(error)".hasPrefix(expected), "\(error)")
                XCTAssertFalse("\(error)".contains("line one"))
            }
        }
        XCTAssertEqual(
            try secrets.read(.file("two-lines"), setting: "forges.f.app.private-key", multiline: true),
            "line one\nline two")
    }
}
