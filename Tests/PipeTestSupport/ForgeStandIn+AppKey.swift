import Foundation

/// A GitHub App's RSA key pair made with `openssl` for a test, and JWTs signed with it (RS256), so the stand-in can
/// check what Pipe signs and tests can sign good and bad tokens of their own.
public struct ForgeStandInAppKey {
    public let privateKey: URL
    public let publicKey: URL

    public init(in folder: URL) throws {
        privateKey = folder.appendingPathComponent("app-private-key.pem")
        publicKey = folder.appendingPathComponent("app-public-key.pem")
        try Self.openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", privateKey.path])
        try Self.openssl(["pkey", "-in", privateKey.path, "-pubout", "-out", publicKey.path])
    }

    /// A JWT for `appID` issued at `issuedAt` (Unix seconds) and expiring `lifetime` seconds later.
    public func jwt(appID: Int, issuedAt: Int = Int(Date().timeIntervalSince1970) - 30, lifetime: Int = 540) throws
        -> String
    {
        let header = Self.base64URL(Data(#"{"alg":"RS256","typ":"JWT"}"#.utf8))
        let claims = Self.base64URL(Data(#"{"iat":\#(issuedAt),"exp":\#(issuedAt + lifetime),"iss":"\#(appID)"}"#.utf8))
        let input = "\(header).\(claims)"
        let signed = try CommandRunner.run(
            URL(fileURLWithPath: "/usr/bin/openssl"), ["dgst", "-sha256", "-sign", privateKey.path],
            stdin: Data(input.utf8))
        guard signed.exitCode == 0 else { throw LoopbackHTTPError.failed("sign", privateKey, signed.combined) }
        return "\(input).\(Self.base64URL(signed.stdoutData))"
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private static func openssl(_ arguments: [String]) throws {
        let result = try CommandRunner.run(URL(fileURLWithPath: "/usr/bin/openssl"), arguments)
        guard result.exitCode == 0 else {
            throw LoopbackHTTPError.failed("openssl", URL(fileURLWithPath: "/usr/bin/openssl"), result.combined)
        }
    }
}
