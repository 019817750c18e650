import Foundation

/// A fresh folder under the system temp folder, removed by `remove()` (tests call it in tearDown).
public struct TemporaryDirectory {
    public let url: URL

    public init(prefix: String = "pipe-test") throws {
        let base = URL(fileURLWithPath: NSTemporaryDirectory())
        url = base.appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public func appending(_ path: String) -> URL { url.appendingPathComponent(path) }

    public func remove() { try? FileManager.default.removeItem(at: url) }
}
