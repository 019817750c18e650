import Foundation

/// What `xcrun xcresulttool version` says, and which commands that version has.
///
/// `xcresulttool version 23021, format version 3.53 (current)` (Xcode 16 beta 3) is the first with
/// `get test-results …`; from that version on the old `get --format json` needs `--legacy`, and before it the
/// `--legacy` flag does not exist.
public struct XcresulttoolVersion: Equatable, Comparable, Sendable {
    /// The first version with `get test-results summary|tests`.
    public static let firstWithTestResultsCommands = 23021

    public let build: Int
    /// `3.53`, or for Xcode 26 the legacy commands' format version (`3.56`).
    public let formatVersion: String?

    public init(build: Int, formatVersion: String? = nil) {
        self.build = build
        self.formatVersion = formatVersion
    }

    /// Reads the command's output.
    ///
    /// - Throws: `XcresultError.unrecognizedVersion` when there is no `xcresulttool version <number>`.
    public static func parse(_ output: String) throws -> XcresulttoolVersion {
        let marker = "xcresulttool version "
        guard let range = output.range(of: marker) else {
            throw XcresultError.unrecognizedVersion(ToolOutput.firstLine(output))
        }
        let digits = output[range.upperBound...].prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let build = Int(digits) else {
            throw XcresultError.unrecognizedVersion(ToolOutput.firstLine(output))
        }
        var format: String?
        if let formatRange = output.range(of: "format version", options: .backwards) {
            let value = output[formatRange.upperBound...].drop { $0 == ":" || $0 == " " }
                .prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
            format = value.isEmpty ? nil : String(value)
        }
        return XcresulttoolVersion(build: build, formatVersion: format)
    }

    /// `get test-results summary` and `get test-results tests` exist.
    public var hasTestResultsCommands: Bool { build >= Self.firstWithTestResultsCommands }

    /// The old `get --format json` must be called with `--legacy`.
    public var legacyFlagRequired: Bool { build >= Self.firstWithTestResultsCommands }

    /// `xcrun xcresulttool get test-results summary --path <bundle>`.
    public static func summaryArguments(bundlePath: String) -> [String] {
        ["xcrun", "xcresulttool", "get", "test-results", "summary", "--path", bundlePath]
    }

    /// `xcrun xcresulttool get test-results tests --path <bundle>`.
    public static func testsArguments(bundlePath: String) -> [String] {
        ["xcrun", "xcresulttool", "get", "test-results", "tests", "--path", bundlePath]
    }

    /// `xcrun xcresulttool version`.
    public static let versionArguments = ["xcrun", "xcresulttool", "version"]

    public static func < (lhs: XcresulttoolVersion, rhs: XcresulttoolVersion) -> Bool { lhs.build < rhs.build }

}
