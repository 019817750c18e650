import Foundation
import PipeCore
import PipeReport

/// `pipe report`: Pipe's reading of xcodebuild results as a standalone tool, for logs and bundles made elsewhere.
enum ReportCommand {
    static let spec = CommandSpec(
        name: "report",
        summary: "Show and classify an xcodebuild log or xcresulttool output made elsewhere; write reports.",
        discussion: """
            Reads an xcodebuild log as it streams in (from stdin, or --log FILE), shows a line per test and the \
            failures with their message and location, and exits with the classification's code, so it can stand \
            in a CI step in place of a plain pipe into a formatter. Result bundle output copied off a Mac can be \
            given as well or instead: `xcrun xcresulttool get test-results summary` (--summary-json), `… tests` \
            (--tests-json), or the legacy `get --legacy --format json` root record and the objects fetched with \
            --id (--legacy-json, several files, told apart by their _type).

            A log that ends with no ** … ** banner and no --exit-code is an infrastructure failure (the run ended \
            without a verdict). Input that cannot be read in full is reported with the line or byte where reading \
            stopped, and what was read up to there is still used. The output depends only on the input.

            Examples:
              xcodebuild test -scheme App -destination id=… 2>&1 | pipe report --junit junit.xml
              pipe report --log xcodebuild.log --exit-code 65 --markdown summary.md
              pipe report --summary-json summary.json --tests-json tests.json --exit-code 0
              pipe report --legacy-json root.json tests-ref.json --summary summary.json
            """,
        arguments: [.variadic("file", help: "More legacy JSON files, after --legacy-json.")],
        options: [
            .value("log", valueName: "file", help: "The xcodebuild log (`-` for stdin, the default without inputs)."),
            .value("summary-json", valueName: "file", help: "Output of `xcresulttool get test-results summary`."),
            .value("tests-json", valueName: "file", help: "Output of `xcresulttool get test-results tests`."),
            .repeated(
                "legacy-json", valueName: "file",
                help: "Legacy `xcresulttool get --legacy --format json` output: the root record, objects by --id."),
            .value("exit-code", valueName: "n", help: "xcodebuild's exit code, added to the evidence."),
            .value("junit", valueName: "out", help: "Write a JUnit XML report here."),
            .value("markdown", valueName: "out", help: "Write a Markdown summary here (for a PR comment or chat)."),
            .value("summary", valueName: "out", help: "Write the run record (summary.json's schema) here."),
            .value("layer", valueName: "name", default: "tests", help: "The layer's name in the reports."),
            .flag("json", help: "Print one JSON event per line instead of the condensed view."),
            .flag("verbose", short: "v", help: "Also print the raw log as it is read."),
        ],
        sections: [
            HelpSection(
                title: "EXIT CODES",
                rows: [
                    .init("0", "The tests passed (or were flaky)."),
                    .init("1", "The tests or the build failed."),
                    .init("2", "Invalid usage, or nothing could be read at all."),
                    .init(
                        "3",
                        "Could not judge the app: host configuration (scheme, destination) or infrastructure (the run "
                            + "ended without a verdict)."),
                ])
        ])

    /// How much of the log is read at a time: large enough to be cheap per byte, small enough to keep memory flat.
    static let chunkBytes = 1 << 20

    static func execute(_ context: CommandContext) throws -> Int32 {
        let arguments = context.arguments
        let command = arguments.command
        var legacyFiles = arguments.strings("legacy-json")
        let extraFiles = arguments.variadic("file")
        if !extraFiles.isEmpty {
            guard !legacyFiles.isEmpty else {
                throw UsageError(
                    .custom(
                        "unexpected argument '\(extraFiles[0])': give the log with --log (or on stdin) and result "
                            + "bundle output with --summary-json, --tests-json or --legacy-json"), command: command)
            }
            legacyFiles += extraFiles
        }
        var exitCode: Int32?
        if let text = arguments.string("exit-code") {
            guard let code = Int32(text), (0...255).contains(code) else {
                throw UsageError(
                    .invalidValue(option: "--exit-code", value: text, expected: "a whole number from 0 to 255"),
                    command: command)
            }
            exitCode = code
        }
        let outputs = try outputURLs(context)
        let bundleInputs =
            arguments.string("summary-json") != nil || arguments.string("tests-json") != nil
            || !legacyFiles.isEmpty
        let logSource = arguments.string("log") ?? (bundleInputs ? nil : "-")
        if logSource == "-", isatty(STDIN_FILENO) == 1 {
            throw UsageError(
                .custom(
                    "pipe report reads an xcodebuild log on stdin, and stdin is a terminal: pipe the log in "
                        + "(xcodebuild … 2>&1 | pipe report) or give --log FILE, --summary-json, --tests-json or "
                        + "--legacy-json"), command: command)
        }

        let json = arguments.flag("json")
        let renderer: EventSink =
            json
            ? JSONLinesRenderer(clock: nil, write: context.console.out)
            : LiveRenderer(
                style: LiveRenderer.defaultStyle(environment: context.environment), verbose: arguments.flag("verbose"),
                clock: nil, write: context.console.out)
        let assembler = ReportAssembler(
            options: ReportAssembler.Options(
                layer: arguments.string("layer") ?? "tests", exitCode: exitCode,
                summaryPath: arguments.string("summary") ?? "", emitOutput: arguments.flag("verbose"),
                warnInEvents: json),
            events: renderer)

        let currentDirectory = context.currentDirectory
        func read(_ path: String, _ add: (Data, String) -> Void) {
            let url = URL(fileURLWithPath: path, relativeTo: currentDirectory)
            do {
                add(try Data(contentsOf: url), path)
            } catch {
                assembler.addUnreadableInput(source: path, message: "could not read it: \(Self.reason(error))")
            }
        }
        if let path = arguments.string("summary-json") { read(path, assembler.addSummaryJSON) }
        if let path = arguments.string("tests-json") { read(path, assembler.addTestsJSON) }
        for path in legacyFiles { read(path, assembler.addLegacyJSON) }
        if let logSource { streamLog(logSource, into: assembler, currentDirectory: currentDirectory) }

        guard let result = assembler.finish() else {
            context.console.err("error: pipe report could not read anything from its inputs\n")
            for problem in assembler.problems { context.console.err("  \(problem)\n") }
            return PipeExitCode.usage.rawValue
        }
        for problem in result.problems { context.console.err("pipe report: \(problem)\n") }
        do {
            if let url = outputs.junit {
                try RunReports.writeAtomically(
                    JUnitReport.render(result.record, earlierRuns: result.earlierRuns), to: url)
            }
            if let url = outputs.markdown {
                try RunReports.writeAtomically(
                    MarkdownSummary.render(result.record, earlierRuns: result.earlierRuns), to: url)
            }
            if let url = outputs.summary { try result.record.write(to: url) }
        } catch {
            context.console.err("error: \(error)\n")
            return PipeExitCode.usage.rawValue
        }
        return result.exitCode.rawValue
    }

    /// Reads the log a chunk at a time into the assembler; memory stays flat whatever its size.
    private static func streamLog(_ source: String, into assembler: ReportAssembler, currentDirectory: URL) {
        let descriptor: Int32
        if source == "-" {
            descriptor = STDIN_FILENO
        } else {
            let path = URL(fileURLWithPath: source, relativeTo: currentDirectory).path
            descriptor = open(path, O_RDONLY)
            guard descriptor >= 0 else {
                assembler.addUnreadableInput(
                    source: source, message: "could not open it: \(String(cString: strerror(errno)))")
                return
            }
        }
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }
        assembler.beginLog(source: source)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunkBytes, alignment: 16)
        defer { buffer.deallocate() }
        var readError: String?
        while true {
            let count = Foundation.read(descriptor, buffer, chunkBytes)
            if count < 0 {
                if errno == EINTR { continue }
                readError = "could not read further: \(String(cString: strerror(errno)))"
                break
            }
            if count == 0 { break }
            // The assembler copies what it keeps, so the buffer can be lent without a copy.
            assembler.feedLog(Data(bytesNoCopy: buffer, count: count, deallocator: .none))
        }
        assembler.endLog(readError: readError)
    }

    private struct Outputs {
        var junit: URL?
        var markdown: URL?
        var summary: URL?
    }

    /// The report files asked for; their folders must exist, so a typo fails before the log is read, not after.
    private static func outputURLs(_ context: CommandContext) throws -> Outputs {
        func url(_ option: String) throws -> URL? {
            guard let path = context.arguments.string(option) else { return nil }
            let url = URL(fileURLWithPath: path, relativeTo: context.currentDirectory).standardizedFileURL
            var isDirectory: ObjCBool = false
            let folder = url.deletingLastPathComponent()
            guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue
            else {
                throw UsageError(
                    .custom("--\(option) \(path): the folder \(folder.path) does not exist; create it first"),
                    command: context.arguments.command)
            }
            return url
        }
        return Outputs(junit: try url("junit"), markdown: try url("markdown"), summary: try url("summary"))
    }

    private static func reason(_ error: Error) -> String {
        if let cocoa = error as? CocoaError, let underlying = cocoa.underlying as? POSIXError {
            return String(cString: strerror(underlying.code.rawValue))
        }
        if let cocoa = error as? CocoaError, cocoa.code == .fileReadNoSuchFile { return "no such file" }
        return error.localizedDescription
    }
}
