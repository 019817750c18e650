import PipeCore
import PipeSSH
import XCTest

final class SSHSmokeTests: XCTestCase {
    func testSmoke() throws {
        let server = try TestSSHServer.require()
        let session: SSHSession
        do { session = try SSHSession.connect(to: server.hostConfig()) } catch { print(server.log()); throw error }
        print("connect", session.connectSeconds, session.methods, session.hostKeyFingerprint)
        let host = SSHRemoteHost(session: session)
        let out = try host.capture("echo hi; echo err >&2; exit 3")
        print(out.stdoutText, out.stderrText, out.exit)
    }
}
