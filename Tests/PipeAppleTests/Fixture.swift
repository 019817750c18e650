import Foundation
import XCTest

/// Reads files under `Tests/PipeAppleTests/Fixtures/` (see the README there for where each sample came from).
enum Fixture {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func data(_ relativePath: String, file: StaticString = #filePath, line: UInt = #line) throws -> Data {
        let url = folder.appendingPathComponent(relativePath)
        guard FileManager.default.fileExists(atPath: url.path) else {
            XCTFail("missing fixture \(url.path)", file: file, line: line)
            throw CocoaError(.fileNoSuchFile)
        }
        return try Data(contentsOf: url)
    }

    static func text(_ relativePath: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        String(decoding: try data(relativePath, file: file, line: line), as: UTF8.self)
    }
}
