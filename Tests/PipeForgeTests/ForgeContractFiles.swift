import Foundation
import PipeForge
import PipeTestSupport

/// The forges' published contract pack in Tests/ForgeContract: payloads and signature vectors, byte for byte.
enum ForgeContractFiles {
    static let root = RepositoryPaths.root.appendingPathComponent("Tests/ForgeContract")

    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(path)))
    }

    static func text(_ path: String) throws -> String {
        String(decoding: try bytes(path), as: UTF8.self)
    }

    /// Every payload file of a forge, by file name.
    static func payloadNames(_ forge: ForgeKind) throws -> [String] {
        try FileManager.default.contentsOfDirectory(
            atPath: root.appendingPathComponent("\(forge.rawValue)/webhooks").path
        ).filter { $0.hasSuffix(".json") }.sorted()
    }

    /// A header of a vector's `expected-headers.txt`.
    static func expectedHeader(_ forge: ForgeKind, _ name: String) throws -> String? {
        let lines = try text("\(forge.rawValue)/webhooks/signature-vector/expected-headers.txt")
            .split(separator: "\n")
        let prefix = "\(name): "
        return lines.first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }
}
