import XCTest

@testable import PipeCLI

/// The pure parts of `pipe hosts …`: reading `df -P -k`, fingerprints as typed, run folders safe to remove.
final class HostsCommandHelpersTests: XCTestCase {
    func testFreeSpaceIsReadFromDfOnMacOSAndLinuxAlike() {
        // macOS 14, `df -P -k .` in a home folder.
        let mac = [
            "pipe-folder /Users/ci/pipe-work",
            "Filesystem     1024-blocks      Used Available Capacity  Mounted on",
            "/dev/disk3s5    971350180 612345678 340123456    65%    /System/Volumes/Data",
        ]
        XCTAssertEqual(HostProbe.freeKilobytes(dfLines: mac), 340_123_456)
        // Debian (the emulated host), same flags.
        let linux = [
            "pipe-folder /home/pipe-mac",
            "Filesystem     1024-blocks     Used Available Capacity Mounted on",
            "/dev/vda         264212084 16951860  82113752      18% /",
        ]
        XCTAssertEqual(HostProbe.freeKilobytes(dfLines: linux), 82_113_752)
        // A file system whose name holds a space does not shift the columns.
        let autofs = [
            "Filesystem     1024-blocks Used Available Capacity Mounted on",
            "map auto_home            0    0         0   100%    /System/Volumes/Data/home",
        ]
        XCTAssertEqual(HostProbe.freeKilobytes(dfLines: autofs), 0)
        XCTAssertNil(HostProbe.freeKilobytes(dfLines: ["df: .: No such file or directory"]))
        XCTAssertNil(HostProbe.freeKilobytes(dfLines: []))
    }

    func testAFingerprintIsTakenWithOrWithoutItsPrefixAndPaddingAndNothingElse() throws {
        guard case .run(_, let arguments) = PipeCommandLine.tool.parse(["hosts", "trust", "mac-1"]) else {
            return XCTFail("did not parse")
        }
        let body = "Qy1dyJzo1FlL0D2EsJLV8YQ2wjL0QPyVJEtt+RoH3oM"
        for typed in ["SHA256:\(body)", body, "\(body)=", " SHA256:\(body) "] {
            XCTAssertEqual(try HostsTrustCommand.normalized(typed, arguments), "SHA256:\(body)", typed)
        }
        for typed in ["SHA256:short", "MD5:\(body)", "SHA256:\(body.dropLast())!", ""] {
            XCTAssertThrowsError(try HostsTrustCommand.normalized(typed, arguments), typed) {
                XCTAssertTrue("\($0)".contains("--fingerprint"), "\($0)")
            }
        }
    }

    func testOnlyAFolderShapedLikeARunFolderIsEverRemoved() {
        let runID = "20261129-140312-7f3a"
        XCTAssertTrue(HostsCleanCommand.isRunFolder("/Users/ci/pipe-work/runs/\(runID)", of: runID))
        for folder in [
            "/Users/ci/pipe-work/runs/\(runID)/..", "/Users/ci/pipe-work/\(runID)", "pipe-work/runs/\(runID)",
            "/runs/\(runID)/../\(runID)", "/Users/ci/pipe-work/runs/20261129-140312-0000", "/", "",
            "/Users/ci/pipe-work/runs/./\(runID)",
        ] {
            XCTAssertFalse(HostsCleanCommand.isRunFolder(folder, of: runID), folder)
        }
        XCTAssertFalse(HostsCleanCommand.isRunFolder("/Users/ci/runs/not-a-run", of: "not-a-run"))
    }

    func testEmptyArraysInJSONAreWrittenOnOneLine() throws {
        let text = try HostsCommand.jsonText([["samples": [Double](), "name": "mac-1", "nested": [[String]()]]])
        XCTAssertFalse(text.contains("[\n\n"), text)
        XCTAssertTrue(text.contains("\"samples\" : []"), text)
        XCTAssertTrue(text.contains("\"nested\" : [\n      []\n    ]"), text)
        XCTAssertEqual(try HostsCommand.jsonText([Any]()), "[]\n")
    }
}
