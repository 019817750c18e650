import Foundation
import PipeApple
import PipeBasics
import PipeCore

/// Reading a result bundle on an Xcode before 16, whose `xcresulttool` has only the legacy object graph
/// (apple-formats.md 5.4 and Part 2 §2d): the root record is printed beside the bundle's download (it gives the
/// summary), then the tests behind its `testsRef`, the failed tests' details behind their `summaryRef` (messages,
/// locations, attachments), and each of those attachments exported with `export --type file` into the evidence
/// folder, which comes back as on Xcode 16.
///
/// Everything the host prints is read within `capture`'s output limit, and every id it gives goes to the shell
/// quoted; the exported files get names Pipe chose (`<n>.<ext>`), never the host's.
enum LegacyBundleEvidence {
    /// The tests whose details are fetched: those that failed, at most this many.
    static let maximumDetailedTests = 20

    /// What the host's tools gave besides the root record.
    struct Listing {
        var tests: [TestCaseResult] = []
        var attachments: [(test: String, attachment: XcresultAttachmentManifest.Attachment)] = []
        var notes: [String] = []
    }

    /// Whether the host's Xcode (`Xcode 15.4 (15F31d)`) is one whose `xcresulttool` lacks `get test-results`.
    static func applies(hostXcode: String?) -> Bool {
        guard let xcode = hostXcode, xcode.hasPrefix("Xcode ") else { return false }
        guard let major = Int(xcode.dropFirst("Xcode ".count).prefix { $0.isNumber }) else { return false }
        return major < 16
    }

    /// The command beside the bundle's download: makes the evidence folder (with the coverage report when asked
    /// for) and prints the root record last, so its output is the record alone.
    static func script(bundle: ResultBundlePath, coverage: Bool) -> String {
        let path = ShellQuote.quote(bundle.path)
        let folder = ShellQuote.quote(BundleEvidence.remoteFolder(of: bundle))
        var steps = ["rm -rf \(folder)", "mkdir -p \(folder)/\(BundleEvidence.FileName.attachments)"]
        if coverage {
            steps.append(
                "xcrun xccov view --report --json \(path) > \(folder)/\(BundleEvidence.FileName.coverage) 2>/dev/null")
        }
        let root = ShellQuote.join(["xcrun", "xcresulttool", "get", "--format", "json", "--path", bundle.path])
        return "{ " + steps.joined(separator: "; ") + "; } >/dev/null 2>&1; " + root
    }

    /// Reads the root record the script printed.
    static func root(_ output: Data) throws -> XcresultLegacyInvocationRecord {
        let json = try JSONSerialization.jsonObject(with: output)
        guard
            case .invocationRecord(let record) = try XcresultLegacyDocument.read(
                ControlSequences.stripStrings(in: json))
        else {
            throw XcresultLegacyError.unsupportedType(
                "another object", supported: [XcresultLegacyInvocationRecord.typeName])
        }
        return record
    }

    /// Fetches the tests and the failed tests' details, and exports their attachments into the evidence folder.
    static func gather(bundle: ResultBundlePath, root: XcresultLegacyInvocationRecord, host: RemoteHost) -> Listing {
        var listing = Listing()
        let testAction = root.actions.first { $0.schemeCommandName == "Test" } ?? root.actions.first
        guard let testsID = testAction?.testsReferenceID ?? root.actions.compactMap(\.testsReferenceID).first else {
            return listing
        }
        guard let summaries = fetchTests(bundle: bundle, id: testsID, host: host, listing: &listing) else {
            return listing
        }
        listing.tests = summaries.tests
        let failed = summaries.tests.filter { $0.status == .failed }
        let detailed = failed.prefix(maximumDetailedTests).compactMap { test in
            summaries.summaryReferenceIDs[test.identifier].map { (test.identifier, $0) }
        }
        if failed.count > maximumDetailedTests {
            listing.notes.append(
                "the bundle's details were read for \(maximumDetailedTests) of \(failed.count) failed tests")
        }
        var toExport: [(test: String, attachment: XcresultLegacyTestSummary.Attachment)] = []
        for summary in fetchDetails(bundle: bundle, ids: detailed.map(\.1), host: host, listing: &listing) {
            let identifier = summary.result.identifier
            if let index = listing.tests.firstIndex(where: { $0.identifier == identifier }) {
                if listing.tests[index].failureMessage == nil {
                    listing.tests[index].failureMessage = summary.result.failureMessage
                }
                if listing.tests[index].failureLocation == nil {
                    listing.tests[index].failureLocation = summary.result.failureLocation
                }
            }
            toExport += summary.attachments.map { (identifier, $0) }
        }
        export(toExport, bundle: bundle, host: host, listing: &listing)
        return listing
    }

    private static func fetchTests(
        bundle: ResultBundlePath, id: String, host: RemoteHost, listing: inout Listing
    ) -> XcresultLegacyTestPlanRunSummaries? {
        let command = ShellQuote.join([
            "xcrun", "xcresulttool", "get", "--format", "json", "--path", bundle.path, "--id", id,
        ])
        do {
            let output = try host.capture(command, stdin: nil, timeoutSeconds: 60)
            guard output.exit == .exited(0) else {
                listing.notes.append("the bundle's test list could not be read: xcresulttool \(output.exit)")
                return nil
            }
            let json = try JSONSerialization.jsonObject(with: output.stdout)
            guard
                case .testPlanRunSummaries(let summaries) = try XcresultLegacyDocument.read(
                    ControlSequences.stripStrings(in: json))
            else {
                listing.notes.append("the bundle's test list could not be read: not an ActionTestPlanRunSummaries")
                return nil
            }
            return summaries
        } catch {
            listing.notes.append("the bundle's test list could not be read: \(error)")
            return nil
        }
    }

    /// One command for every test: each object is followed by a NUL byte, which JSON text never holds.
    private static func fetchDetails(
        bundle: ResultBundlePath, ids: [String], host: RemoteHost, listing: inout Listing
    ) -> [XcresultLegacyTestSummary] {
        guard !ids.isEmpty else { return [] }
        let command = ids.map { id in
            ShellQuote.join(["xcrun", "xcresulttool", "get", "--format", "json", "--path", bundle.path, "--id", id])
                + " 2>/dev/null; printf '\\000'"
        }.joined(separator: "; ")
        let output: CapturedOutput
        do {
            output = try host.capture(command, stdin: nil, timeoutSeconds: 120)
        } catch {
            listing.notes.append("the failed tests' details could not be read: \(error)")
            return []
        }
        var summaries: [XcresultLegacyTestSummary] = []
        var unreadable = 0
        for part in output.stdout.split(separator: 0, omittingEmptySubsequences: false).prefix(ids.count) {
            guard let json = try? JSONSerialization.jsonObject(with: Data(part)),
                case .testSummary(let summary)? = try? XcresultLegacyDocument.read(
                    ControlSequences.stripStrings(in: json))
            else {
                unreadable += 1
                continue
            }
            summaries.append(summary)
        }
        if unreadable > 0 {
            listing.notes.append("\(unreadable) of \(ids.count) failed tests' details could not be read")
        }
        return summaries
    }

    /// Exports each attachment (at most `BundleEvidence.maximumAttachments`) as `<n>.<ext>` in the folder's
    /// `attachments/`; the evidence reader then holds them to its limits as it does an Xcode 16 export.
    private static func export(
        _ attachments: [(test: String, attachment: XcresultLegacyTestSummary.Attachment)], bundle: ResultBundlePath,
        host: RemoteHost, listing: inout Listing
    ) {
        guard !attachments.isEmpty else { return }
        let folder = BundleEvidence.remoteFolder(of: bundle) + "/" + BundleEvidence.FileName.attachments
        var commands: [String] = []
        for (number, entry) in attachments.prefix(BundleEvidence.maximumAttachments).enumerated() {
            let fileName = "\(number + 1).\(fileExtension(entry.attachment))"
            commands.append(
                ShellQuote.join([
                    "xcrun", "xcresulttool", "export", "--type", "file", "--path", bundle.path, "--id",
                    entry.attachment.payloadID, "--output-path", folder + "/" + fileName,
                ]))
            listing.attachments.append(
                (
                    entry.test,
                    XcresultAttachmentManifest.Attachment(
                        exportedFileName: fileName,
                        suggestedHumanReadableName: entry.attachment.filename ?? entry.attachment.name,
                        isAssociatedWithFailure: true)
                ))
        }
        if attachments.count > BundleEvidence.maximumAttachments {
            listing.notes.append(
                "\(attachments.count - BundleEvidence.maximumAttachments) of \(attachments.count) attachments left "
                    + "out: at most \(BundleEvidence.maximumAttachments) are kept")
        }
        let limit = BundleEvidence.maximumAttachmentBytes / 1024
        let script =
            "mkdir -p \(ShellQuote.quote(folder)) && { " + commands.joined(separator: "; ") + "; } >/dev/null 2>&1; "
            + "find \(ShellQuote.quote(folder)) -type f -size +\(limit)k -delete"
        do {
            _ = try host.capture(script, stdin: nil, timeoutSeconds: 120)
        } catch {
            listing.notes.append("the attachments could not be exported: \(error)")
        }
    }

    /// The attachment's own extension when it is a plain short one, else one from its type.
    static func fileExtension(_ attachment: XcresultLegacyTestSummary.Attachment) -> String {
        if let name = attachment.filename, let dot = name.lastIndex(of: ".") {
            let candidate = name[name.index(after: dot)...]
            if (1...8).contains(candidate.count), candidate.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) {
                return candidate.lowercased()
            }
        }
        switch attachment.uniformTypeIdentifier {
        case "public.png": return "png"
        case "public.jpeg": return "jpg"
        case "public.plain-text", "public.utf8-plain-text": return "txt"
        case "public.json": return "json"
        default: return "bin"
        }
    }
}
