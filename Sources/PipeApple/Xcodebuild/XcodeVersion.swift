import Foundation

/// What `xcodebuild -version` says: `Xcode 15.4` and `Build version 15F31d`.
public struct XcodeVersion: Equatable, Sendable, CustomStringConvertible {
    /// `15.4`, `16.0`, `26.1`.
    public let version: NumericVersion
    /// `15F31d`, `16C5032a`; `nil` when the line is missing.
    public let build: String?

    public init(version: NumericVersion, build: String?) {
        self.version = version
        self.build = build
    }

    /// `Xcode 15.4 (15F31d)`.
    public var description: String { "Xcode \(version)" + (build.map { " (\($0))" } ?? "") }

    /// Reads the output, skipping any warning lines tools print before it.
    ///
    /// - Throws: `XcodeVersionError` when no `Xcode <version>` line is there; a host with only the Command Line
    ///   Tools is named as such.
    public static func parse(_ output: String) throws -> XcodeVersion {
        let lines = output.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        for (index, line) in lines.enumerated() where line.hasPrefix("Xcode ") {
            guard let version = NumericVersion(String(line.dropFirst("Xcode ".count))) else { continue }
            let buildLine = lines.dropFirst(index + 1).first { $0.hasPrefix("Build version ") }
            let build = buildLine.map { String($0.dropFirst("Build version ".count)) }.flatMap { $0.isEmpty ? nil : $0 }
            return XcodeVersion(version: version, build: build)
        }
        let first = lines.first ?? ""
        if output.contains("command line tools instance") || output.contains("requires Xcode") {
            throw XcodeVersionError.commandLineToolsOnly(first)
        }
        throw XcodeVersionError.unrecognized(first)
    }
}

/// `xcodebuild -version` did not name an Xcode.
public enum XcodeVersionError: Error, Equatable, CustomStringConvertible, Sendable {
    /// Only the Command Line Tools are selected: xcodebuild cannot run tests.
    case commandLineToolsOnly(String)
    case unrecognized(String)

    public var description: String {
        switch self {
        case .commandLineToolsOnly(let line):
            return
                "the host has no Xcode selected ('\(line)'); install Xcode and run "
                + "`sudo xcode-select -s /Applications/Xcode.app`"
        case .unrecognized(let line):
            return
                "`xcodebuild -version` printed '\(line)' instead of 'Xcode <version>'; check the host's Xcode "
                + "installation"
        }
    }
}
