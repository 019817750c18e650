import Foundation

/// The legacy commands: `get [--legacy] --format json --path X [--id ID]` and
/// `export [--legacy] --type file --path X --output-path Y --id ID`. Before xcresulttool 23021 (Xcode 16 beta 3)
/// they are the only commands and `--legacy` does not exist; from it on they need `--legacy`
/// (apple-formats.md 5.5).
extension XCResultTool {
    /// Xcode 15 and earlier: no `get test-results`, no `export attachments`, no `--legacy`.
    static func isLegacyOnly(_ config: EmulatedHostConfig) -> Bool {
        config.xcresulttoolVersion < 23021
    }

    static let legacyGetUsage =
        "Usage: xcresulttool get --path <path> [--id <id>] [--version <version>] [--format <format>]"
    static let legacyExportUsage =
        "Usage: xcresulttool export --path <path> --output-path <output-path> [--id <id>] --type <type> "
        + "[--version <version>]"

    /// An argument the old tool does not know: ArgumentParser's wording.
    func unexpectedArgument(_ argument: String, usage: String, command: String) -> Int32 {
        context.stderr.line("Error: Unexpected argument '\(argument)'")
        context.stderr.line(usage)
        context.stderr.line("  See 'xcresulttool \(command) --help' for more information.")
        return 64
    }

    /// `get` of one legacy object: the root record without `--id`, else the object the id names.
    func legacyObject(_ arguments: [String], legacyOnly: Bool) -> Int32 {
        guard let options = legacyOptions(arguments, legacyOnly: legacyOnly, usage: Self.legacyGetUsage) else {
            return 64
        }
        if let format = options.values["--format"], format != "json" {
            context.stderr.line(
                "Error: the emulated xcresulttool prints legacy objects as json only (asked: --format \(format)).")
            return 64
        }
        guard let path = options.values["--path"] else {
            context.stderr.line("Error: Missing expected argument '--path <path>'")
            context.stderr.line(Self.legacyGetUsage)
            return 64
        }
        guard let record = readRecord(path) else { return 1 }
        let document: AppleJSON
        switch options.values["--id"].map({ XCResultLegacyJSON.reference(for: $0, in: record) }) {
        case nil: document = XCResultLegacyJSON.root(record)
        case .some(.tests): document = XCResultLegacyJSON.tests(record)
        case .some(.testSummary(let index)): document = XCResultLegacyJSON.testSummary(record, index: index)
        case .some(.payload), .some(nil):
            context.stderr.line("Error: No object with the id '\(options.values["--id"] ?? "")' in the result bundle.")
            return 1
        }
        context.stdout.write(document.rendered(AppleJSON.Style(sortsKeys: true, escapesSlashes: true, compact: false)))
        return 0
    }

    /// `export --type file`: the payload an attachment's `payloadRef` names, written at `--output-path`.
    func legacyExport(_ arguments: [String], legacyOnly: Bool) -> Int32 {
        guard let options = legacyOptions(arguments, legacyOnly: legacyOnly, usage: Self.legacyExportUsage) else {
            return 64
        }
        guard let path = options.values["--path"], let output = options.values["--output-path"],
            let type = options.values["--type"]
        else {
            context.stderr.line("Error: Missing expected argument '--path', '--output-path' or '--type'")
            context.stderr.line(Self.legacyExportUsage)
            return 64
        }
        guard type == "file" else {
            context.stderr.line("Error: the emulated xcresulttool exports --type file only (asked: \(type)).")
            return 64
        }
        guard let record = readRecord(path) else { return 1 }
        let id = options.values["--id"] ?? ""
        guard case .payload(let index)? = XCResultLegacyJSON.reference(for: id, in: record),
            let attachment = record.attachments?[index]
        else {
            context.stderr.line("Error: No file with the id '\(id)' in the result bundle.")
            return 1
        }
        let source = URL(fileURLWithPath: context.absolutePath(path)).appendingPathComponent(
            ResultBundle.attachmentsFolder
        ).appendingPathComponent(attachment.fileName)
        let target = URL(fileURLWithPath: context.absolutePath(output))
        do {
            try? FileManager.default.removeItem(at: target)
            try FileManager.default.copyItem(at: source, to: target)
        } catch {
            context.stderr.line("Error: could not export \(attachment.fileName): \(error)")
            return 1
        }
        return 0
    }

    private struct LegacyOptions {
        var values: [String: String] = [:]
    }

    /// Reads `--path`, `--id`, `--format`, `--output-path`, `--type`, `--version` and, where the tool has it,
    /// `--legacy` (which from 23021 on must be given).
    private func legacyOptions(_ arguments: [String], legacyOnly: Bool, usage: String) -> LegacyOptions? {
        var options = LegacyOptions()
        var sawLegacyFlag = false
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            switch argument {
            case "--legacy" where !legacyOnly:
                sawLegacyFlag = true
            case "--path", "--id", "--format", "--output-path", "--type", "--version":
                guard index < arguments.count else {
                    context.stderr.line("Error: Missing value for '\(argument)'")
                    return nil
                }
                options.values[argument] = arguments[index]
                index += 1
            default:
                context.stderr.line("Error: Unknown option '\(argument)'")
                context.stderr.line(usage)
                return nil
            }
        }
        if !legacyOnly, !sawLegacyFlag {
            context.stderr.line(
                "Error: This command is deprecated and will be removed in a future release, --legacy flag is required to "
                    + "use it.")
            context.stderr.line(
                usage.replacingOccurrences(of: "xcresulttool get ", with: "xcresulttool get object [--legacy] ")
                    .replacingOccurrences(of: "xcresulttool export ", with: "xcresulttool export object [--legacy] "))
            return nil
        }
        return options
    }

    private func readRecord(_ path: String) -> ResultBundleRecord? {
        do {
            return try ResultBundle.read(at: context.absolutePath(path))
        } catch {
            context.stderr.line("Error: \(error)")
            return nil
        }
    }
}
