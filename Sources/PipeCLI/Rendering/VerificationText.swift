import Foundation
import PipeBasics
import PipeCore

/// `pipe verify`'s text: the answer first, then what it rests on.
enum VerificationText {
    static func render(_ verification: ReleaseVerification) -> String {
        var out = ""
        if verification.releasable {
            out += "✓ yes: \(verification.subject) may be released\n"
        } else {
            out += "✗ no: \(verification.subject) may not be released (exit \(verification.exitCode))\n"
            out += verification.missing.map { "  - \($0)\n" }.joined()
        }
        if let build = verification.build { out += self.build(build) }
        if !verification.gates.isEmpty {
            out += "gates:\n"
            out += verification.gates.map {
                "  \($0.gate.rawValue) · run \($0.runID) (\($0.pipeline)) · \($0.verdict): \($0.headline)\n"
            }.joined()
        }
        if !verification.signoffs.isEmpty {
            out += "sign-offs:\n"
            for signoff in verification.signoffs {
                var line = "  \(signoff.layer) · \(signoff.decision.rawValue) by \(signoff.signedBy) at "
                line += UTCTimestamp.iso8601(signoff.at)
                let facts = [
                    signoff.osVersion.map { "OS \($0)" }, signoff.device, signoff.appBuild.map { "build \($0)" },
                    signoff.buildSHA256.map { "SHA-256 \($0)" },
                ].compactMap { $0 }
                if !facts.isEmpty { line += " · " + facts.joined(separator: ", ") }
                line += signoff.checkedThisBuild ? " · this build" : " · not this build"
                out += line + "\n"
            }
        }
        if !verification.bundles.isEmpty {
            out += "automated layers' bundles:\n"
            out += verification.bundles.map {
                "  \($0.layer) · \($0.kind) \($0.path) · \($0.bytes.map { "\($0) bytes" } ?? "size unknown") · "
                    + "SHA-256 \($0.sha256 ?? "none recorded")\n"
            }.joined()
        }
        if !verification.otherBuilds.isEmpty {
            out += "other release builds of this commit: \(verification.otherBuilds.joined(separator: ", "))\n"
        }
        return out
    }

    private static func build(_ build: ReleaseBuild) -> String {
        var out = "build: \(build.app.bundleID) \(build.app.shortVersion ?? "?") (\(build.app.buildVersion)) · "
        out += "commit \(build.commit) · run \(build.runID), layer \(build.layer)\n"
        out += build.files.map { "  \($0.kind.rawValue) \($0.path) · \($0.size) bytes · SHA-256 \($0.sha256)\n" }
            .joined()
        if let signing = build.signing {
            out += "  signed by \(signing.identitySubject) (SHA-1 \(signing.identitySHA1))\n"
            out += signing.profiles.map {
                "  profile \($0.name) · \($0.uuid) · team \($0.team) · expires \(UTCTimestamp.iso8601($0.expires))\n"
            }.joined()
        }
        let toolchain = build.toolchain
        out += "  Xcode \(toolchain.xcodeVersion)\(toolchain.xcodeBuild.map { " (\($0))" } ?? "")"
        out += toolchain.sdk.map { " · SDK \($0)" } ?? ""
        return out + "\n"
    }
}
