import Foundation
import XCTest

/// Files under `Tests/PipeReportTests/Fixtures/` (see the README there for where each came from).
enum Fixture {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func url(_ relativePath: String) -> URL { folder.appendingPathComponent(relativePath) }

    static func data(_ relativePath: String, file: StaticString = #filePath, line: UInt = #line) throws -> Data {
        let url = url(relativePath)
        guard FileManager.default.fileExists(atPath: url.path) else {
            XCTFail("missing fixture \(url.path)", file: file, line: line)
            throw CocoaError(.fileNoSuchFile)
        }
        return try Data(contentsOf: url)
    }

    /// The JSON value of a fixture, as `JSONSerialization` reads it.
    static func json(_ relativePath: String, file: StaticString = #filePath, line: UInt = #line) throws -> Any {
        try JSONSerialization.jsonObject(with: try data(relativePath, file: file, line: line))
    }
}
