import Foundation
import PipeCore
import PipeForge

/// What each forge's requests are authorized by: its token, or for a GitHub App an installation token exchanged
/// for the app's JWT and kept until shortly before it expires. Tokens and keys are read where `forges.yml` says,
/// and never printed.
final class ForgeCredentials: @unchecked Sendable {
    private let secrets: ForgeSecrets
    private let transport: ForgeOutboxDelivery.Transport
    private let installationTokens = InstallationTokenCache()

    init(secrets: ForgeSecrets, transport: @escaping ForgeOutboxDelivery.Transport) {
        self.secrets = secrets
        self.transport = transport
    }

    func credential(of forge: ForgeConfig) throws -> ForgeCredential {
        guard let app = forge.app else {
            guard let source = forge.token else {
                throw RequestError("forges.\(forge.name): no token is configured; see docs/forges.md")
            }
            return try ForgeCredential.token(
                try secrets.read(source, setting: "forges.\(forge.name).token"), for: forge.kind)
        }
        let github = try self.app(of: forge, app)
        let token = try installationTokens.token(installationID: app.installationID) {
            let request = try github.installationTokenRequest(installationID: app.installationID, at: Date())
            switch transport(request, forge.apiURL) {
            case .success(let answer):
                guard let token = GitHubApp.installationToken(answer) else {
                    throw RequestError(
                        "forges.\(forge.name): GitHub answered \(answer.status) to the installation token exchange; "
                            + "check app.id, app.installation-id and the app's private key")
                }
                return token
            case .failure(let failure):
                throw RequestError("forges.\(forge.name): the installation token exchange failed: \(failure.message)")
            }
        }
        return try ForgeCredential(.bearer, token: token)
    }

    /// The app's own JWT, for `GET /app`; `nil` for a forge that is no GitHub App.
    func appCredential(of forge: ForgeConfig) throws -> ForgeCredential? {
        guard let app = forge.app else { return nil }
        return try self.app(of: forge, app).credential(at: Date())
    }

    private func app(of forge: ForgeConfig, _ app: GitHubAppConfig) throws -> GitHubApp {
        let key = try secrets.read(app.privateKey, setting: "forges.\(forge.name).app.private-key", multiline: true)
        return try GitHubApp(appID: String(app.appID), privateKeyPEM: key)
    }
}
