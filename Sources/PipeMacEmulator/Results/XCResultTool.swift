import Foundation

/// The emulated `xcresulttool`: from version 23021 (Xcode 16) `version`, `get test-results summary|tests --path X`,
/// `export attachments`, and the legacy commands behind `--legacy`; before it the legacy commands alone
/// (`XCResultTool+Legacy.swift`).
struct XCResultTool {
    let context: EmulatorContext

    private static let summaryUsage =
        "Usage: xcresulttool get test-results summary --path <path> [--test-plan-configuration <test-plan-configuration>] "
        + "[--format <format>] [--compact] [--schema] [--schema-version <schema-version>]"

    func run(_ arguments: [String]) -> Int32 {
        guard let (config, _) = context.loadHost() else { return EmulatorContext.configurationExitCode }
        guard let command = arguments.first else {
            context.stderr.line("OVERVIEW: Result bundle tool\n\nUSAGE: xcresulttool <subcommand>")
            return 64
        }
        let legacyOnly = Self.isLegacyOnly(config)
        let rest = Array(arguments.dropFirst())
        switch command {
        case "version", "--version":
            // Xcode 15.4's tool writes format version 3.49; Xcode 16's 3.53.
            let format = legacyOnly ? "3.49" : "3.53"
            context.stdout.line(
                "xcresulttool version \(config.xcresulttoolVersion), format version \(format) (current)")
            return 0
        case "get" where legacyOnly:
            if let first = rest.first, !first.hasPrefix("-") {
                return unexpectedArgument(first, usage: Self.legacyGetUsage, command: "get")
            }
            return legacyObject(rest, legacyOnly: true)
        case "get":
            return get(rest)
        case "export" where legacyOnly:
            if let first = rest.first, !first.hasPrefix("-") {
                return unexpectedArgument(first, usage: Self.legacyExportUsage, command: "export")
            }
            return legacyExport(rest, legacyOnly: true)
        case "export" where rest.first == "attachments":
            return exportAttachments(Array(rest.dropFirst()))
        case "export":
            return legacyExport(rest.first == "object" ? Array(rest.dropFirst()) : rest, legacyOnly: false)
        default:
            context.stderr.line("Error: Unknown subcommand '\(command)'.")
            context.stderr.line("Usage: xcresulttool <subcommand>\n  See 'xcresulttool --help' for more information.")
            return 64
        }
    }

    /// `export attachments --path X --output-path Y [--test-id T] [--only-failures]`: each attachment's file under its
    /// stored name and `manifest.json`, an array of tests with their attachments, as Xcode 16 writes it.
    private func exportAttachments(_ arguments: [String]) -> Int32 {
        var path: String?
        var output: String?
        var testID: String?
        var onlyFailures = false
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            switch argument {
            case "--only-failures": onlyFailures = true
            case "--path", "--output-path", "--test-id", "--schema-version":
                guard index < arguments.count else {
                    context.stderr.line("Error: Missing value for '\(argument)'")
                    return 64
                }
                let value = arguments[index]
                index += 1
                if argument == "--path" { path = value }
                if argument == "--output-path" { output = value }
                if argument == "--test-id" { testID = value }
            default:
                context.stderr.line("Error: Unknown option '\(argument)'")
                return 64
            }
        }
        guard let path, let output else {
            context.stderr.line("Error: Missing expected argument '--path <path>' or '--output-path <output-path>'")
            return 64
        }
        let bundle = context.absolutePath(path)
        let record: ResultBundleRecord
        do {
            record = try ResultBundle.read(at: bundle)
        } catch {
            context.stderr.line("Error: \(error)")
            return 1
        }
        let folder = URL(fileURLWithPath: context.absolutePath(output))
        var tests: [(identifier: String, attachments: [AppleJSON])] = []
        for attachment in record.attachments ?? [] where !onlyFailures || attachment.associatedWithFailure {
            let identifier = "\(attachment.test.target)/\(attachment.test.identifierString)"
            if let testID, testID != identifier, !identifier.hasSuffix("/" + testID) { continue }
            let source = URL(fileURLWithPath: bundle).appendingPathComponent(ResultBundle.attachmentsFolder)
                .appendingPathComponent(attachment.fileName)
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                let target = folder.appendingPathComponent(attachment.fileName)
                try? FileManager.default.removeItem(at: target)
                try FileManager.default.copyItem(at: source, to: target)
            } catch {
                context.stderr.line("Error: could not export \(attachment.fileName): \(error)")
                return 1
            }
            let entry = AppleJSON.object([
                .init("exportedFileName", .string(attachment.fileName)),
                .init("isAssociatedWithFailure", .bool(attachment.associatedWithFailure)),
                .init("suggestedHumanReadableName", .string(attachment.suggestedHumanReadableName)),
                .init("timestamp", .double(attachment.timestamp)),
            ])
            if let at = tests.firstIndex(where: { $0.identifier == identifier }) {
                tests[at].attachments.append(entry)
            } else {
                tests.append((identifier, [entry]))
            }
        }
        let manifest = AppleJSON.array(
            tests.map { test in
                .object([
                    .init("attachments", .array(test.attachments)), .init("testIdentifier", .string(test.identifier)),
                ])
            })
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try manifest.rendered(AppleJSON.Style(sortsKeys: true, escapesSlashes: false, compact: false))
                .write(to: folder.appendingPathComponent("manifest.json"), atomically: true, encoding: .utf8)
        } catch {
            context.stderr.line("Error: could not write the manifest: \(error)")
            return 1
        }
        return 0
    }

    private func get(_ arguments: [String]) -> Int32 {
        guard arguments.first == "test-results", arguments.count >= 2 else {
            return legacyGet(arguments)
        }
        let report = arguments[1]
        guard report == "summary" || report == "tests" else {
            context.stderr.line(
                "Error: the emulated xcresulttool answers 'get test-results summary' and "
                    + "'get test-results tests' only (asked: \(report)).")
            return 64
        }
        var path: String?
        var compact = false
        var index = 2
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            switch argument {
            case "--path":
                guard index < arguments.count else { break }
                path = arguments[index]
                index += 1
            case "--format":
                guard index < arguments.count else { break }
                if arguments[index] != "json" {
                    context.stderr.line("Error: The value '\(arguments[index])' is invalid for '--format <format>'.")
                    return 64
                }
                index += 1
            case "--compact": compact = true
            case "--test-plan-configuration", "--schema-version": index += 1
            default:
                context.stderr.line("Error: Unknown option '\(argument)'")
                context.stderr.line(Self.summaryUsage.replacingOccurrences(of: "summary", with: report))
                return 64
            }
        }
        guard let path else {
            context.stderr.line("Error: Missing expected argument '--path <path>'")
            context.stderr.line(Self.summaryUsage.replacingOccurrences(of: "summary", with: report))
            context.stderr.line("  See 'xcresulttool get test-results \(report) --help' for more information.")
            return 64
        }
        let record: ResultBundleRecord
        do {
            record = try ResultBundle.read(at: context.absolutePath(path))
        } catch ResultBundleError.notABundle(let reason) {
            context.stderr.line(
                "Error: Error Domain=XCResultStorage.ResultBundleFactory.Error Code=0 \"Failed to create a new result "
                    + "bundle reader, underlying error: \(reason)\"")
            return 1
        } catch {
            context.stderr.line("Error: \(error)")
            return 1
        }
        let document = report == "summary" ? XCResultJSON.summary(record) : XCResultJSON.tests(record)
        context.stdout.write(
            document.rendered(AppleJSON.Style(sortsKeys: true, escapesSlashes: false, compact: compact)))
        return 0
    }

    /// `xcresulttool get [object] --legacy --format json --path …`.
    private func legacyGet(_ arguments: [String]) -> Int32 {
        legacyObject(arguments.first == "object" ? Array(arguments.dropFirst()) : arguments, legacyOnly: false)
    }
}
