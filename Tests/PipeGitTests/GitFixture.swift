import Foundation
import XCTest

/// A real repository in a temporary folder, driven by the `git` command line so the code under test (libgit2) is
/// checked against git itself rather than against its own idea of a repository.
final class GitFixture {
    /// The temporary folder holding the repository and anything else a test makes.
    let root: URL
    /// The repository's top folder (with a work tree).
    let repository: URL

    init(name: String = "source") throws {
        root = FileManager.default.temporaryDirectory
            .appendingPathComponent("pipe-git-tests-\(UUID().uuidString)", isDirectory: true)
        repository = root.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: repository, withIntermediateDirectories: true)
        try git("init", "-q", "-b", "main")
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    /// A fresh path under the fixture's folder (not created).
    func path(_ name: String) -> URL { root.appendingPathComponent(name, isDirectory: true) }

    /// Where tests keep their mirrors.
    var mirrors: URL { path("mirrors") }

    /// Runs git in the repository (or `directory`) with a fixed identity and no user or system configuration.
    @discardableResult
    func git(_ arguments: String..., in directory: URL? = nil) throws -> String {
        try Self.run(arguments, in: directory ?? repository)
    }

    static func run(_ arguments: [String], in directory: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        process.arguments = ["-c", "user.name=Pipe Tests", "-c", "user.email=tests@pipe.invalid"] + arguments
        process.currentDirectoryURL = directory
        var environment = ProcessInfo.processInfo.environment
        environment["GIT_CONFIG_NOSYSTEM"] = "1"
        environment["GIT_CONFIG_GLOBAL"] = "/dev/null"
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        // waitUntilExit polls a run loop every 50 ms on Linux; a termination handler returns as soon as git exits.
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        exited.wait()
        guard process.terminationStatus == 0 else {
            throw FixtureError(
                "git \(arguments.joined(separator: " ")) exited \(process.terminationStatus): "
                    + String(decoding: errorData, as: UTF8.self))
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Writes a file (creating folders) relative to the repository's top folder.
    func write(_ relativePath: String, _ contents: String, executable: Bool = false) throws {
        let url = repository.appendingPathComponent(relativePath)
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try contents.write(to: url, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes(
            [.posixPermissions: executable ? 0o755 : 0o644], ofItemAtPath: url.path)
    }

    /// Writes files, stages everything and commits; returns the new commit's SHA.
    @discardableResult
    func commit(_ message: String, files: [String: String] = [:]) throws -> String {
        for (path, contents) in files { try write(path, contents) }
        try git("add", "-A")
        try git("commit", "-q", "--allow-empty", "-m", message)
        return try git("rev-parse", "HEAD")
    }

    struct FixtureError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

/// Every file, folder and symlink under `folder`, as sorted relative paths (folders end with `/`).
func relativeTree(of folder: URL) throws -> [String] {
    let manager = FileManager.default
    var paths: [String] = []
    func walk(_ url: URL, _ prefix: String) throws {
        for name in try manager.contentsOfDirectory(atPath: url.path) {
            let child = url.appendingPathComponent(name)
            let attributes = try manager.attributesOfItem(atPath: child.path)
            if attributes[.type] as? FileAttributeType == .typeDirectory {
                paths.append(prefix + name + "/")
                try walk(child, prefix + name + "/")
            } else {
                paths.append(prefix + name)
            }
        }
    }
    try walk(folder, "")
    return paths.sorted()
}
