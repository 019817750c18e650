import Foundation
import PipeApple
import PipeCore
import XCTest

/// Code-signing and provisioning errors are the configuration of the project or the host (issue 18 §5). Lines
/// from `apple-formats.md` Part 2 §7 (xcpretty and xcbeautify fixtures, MIT; reported logs).
final class SigningFailureTests: XCTestCase {
    private func classify(_ log: String) -> XcodebuildVerdict {
        XcodebuildOutcomeClassifier.classify(exit: .exited(65), log: XcodebuildLogParser.parse(Data(log.utf8)).facts)
    }

    func testEachEraOfSigningErrorIsHostConfigWithAFix() {
        let lines: [(String, String)] = [
            (
                "Signing for \"Responder\" requires a development team. Select a development team in the project "
                    + "editor.", "DEVELOPMENT_TEAM"
            ),
            (
                "/Users/ci/Runner.xcodeproj: error: No profiles for 'com.kiwi.merchant.tests.xctrunner' were found: "
                    + "Xcode couldn't find any iOS App Development provisioning profiles matching "
                    + "'com.kiwi.merchant.tests.xctrunner'. (in target 'RunnerUITests' from project 'Runner')",
                "provisioning profile"
            ),
            (
                "/path/to/project.xcodeproj: error: No signing certificate \"iOS Distribution\" found: No \"iOS "
                    + "Distribution\" signing certificate matching team ID \"xxxxx\" with a private key was found. "
                    + "(in target 'target' from project 'project')", "keychain"
            ),
            (
                "error: Provisioning profile \"match AppStore com.app.mobile\" doesn't include signing certificate "
                    + "\"Apple Distribution: COMPANY (ASGDSGFS)\". (in target 'proj' from project 'proj')",
                "regenerate the profile"
            ),
            (
                "Code Signing Error: Code signing is required for product type 'Application' in SDK 'iOS 12.1'",
                "set a team"
            ),
            (
                "Code Sign error: No code signing identites found: No valid signing identities (i.e. certificate and "
                    + "private key pair) matching the team ID \"CAT6HF57NJ\" were found.", "signing identity"
            ),
            (
                "No account for team \"S3LY459S86\". Add a new account in the Accounts preference pane or verify "
                    + "that your accounts have valid credentials.", "Apple ID"
            ),
        ]
        for (line, fix) in lines {
            let verdict = classify(
                "Check dependencies\n\(line)\n** BUILD FAILED **\n\nThe following build commands failed:\n"
                    + "\tCheck dependencies\n(1 failure)\n")
            XCTAssertEqual(verdict.outcome, .hostConfig, line)
            XCTAssertTrue(verdict.evidence[0].contains(line), "\(verdict.evidence)")
            XCTAssertTrue(verdict.evidence[0].contains(fix), "\(fix): \(verdict.evidence[0])")
        }
    }

    func testAProfileNamedWithoutAnErrorIsNotOne() {
        let log =
            "Provisioning profile \"iOS Team Provisioning Profile: *\" is used\n"
            + "/p/A.swift:1:1: error: cannot find 'x' in scope\n** BUILD FAILED **\n"
        XCTAssertEqual(classify(log).outcome, .buildFailed)
    }
}
