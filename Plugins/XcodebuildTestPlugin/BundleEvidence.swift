import Foundation
import PipeApple
import PipeBasics
import PipeCore

/// What the host's own tools read from a result bundle besides its summary: the tests (`get test-results tests`),
/// code coverage (`xccov view --report --json`, when the layer asks for it) and the attachments
/// (`export attachments`, Xcode 16 and later). One script writes them into a folder beside the bundle while the
/// bundle streams back (`script`), and that folder comes back in one more download, within `limitBytes`; `read`
/// then holds everything in it to the limits below, since the host wrote it.
struct BundleEvidence {
    /// At most this many attachments are kept, those tied to a failure first.
    static let maximumAttachments = 20
    /// An attachment past this size is left out.
    static let maximumAttachmentBytes: Int64 = 8 << 20
    /// What the whole folder may hold; past it the host's folder is refused.
    static let limitBytes: Int64 = 256 << 20
    /// A test results or coverage document past this size is not read.
    static let maximumDocumentBytes: Int64 = 64 << 20

    enum FileName {
        static let tests = "tests.json"
        static let coverage = "coverage.json"
        static let attachments = "attachments"
        static let manifest = "manifest.json"
    }

    var tests: [TestCaseResult] = []
    var coverage: XccovReport?
    var artifacts: [ArtifactRecord] = []
    /// Cuts and unreadable parts, as evidence.
    var notes: [String] = []

    /// The folder on the host: `<bundle>.evidence`, a sibling of the bundle.
    static func remoteFolder(of bundle: ResultBundlePath) -> String { bundle.path + ".evidence" }

    /// The command run beside the bundle's download: writes the evidence folder (honest hosts keep it within the
    /// limits already) and prints the summary last, so its output is the summary alone.
    static func script(bundle: ResultBundlePath, coverage: Bool) -> String {
        let path = ShellQuote.quote(bundle.path)
        let folder = ShellQuote.quote(remoteFolder(of: bundle))
        var steps = [
            "rm -rf \(folder)", "mkdir -p \(folder)/\(FileName.attachments)",
            "xcrun xcresulttool get test-results tests --path \(path) > \(folder)/\(FileName.tests) 2>/dev/null",
        ]
        if coverage {
            steps.append("xcrun xccov view --report --json \(path) > \(folder)/\(FileName.coverage) 2>/dev/null")
        }
        steps.append(
            "xcrun xcresulttool export attachments --path \(path) --output-path \(folder)/\(FileName.attachments)"
                + " > /dev/null 2>&1")
        steps.append(
            "find \(folder)/\(FileName.attachments) -type f -size +\(maximumAttachmentBytes / 1024)k -delete")
        let summary = ShellQuote.join([
            "xcrun", "xcresulttool", "get", "test-results", "summary", "--path", bundle.path,
        ])
        return "{ " + steps.joined(separator: "; ") + "; } >/dev/null 2>&1; " + summary
    }

    /// Reads the pulled-back folder `local`; `logTests` names the run's tests, so attachments are tied to them, and
    /// artifact paths are relative to `projectDirectory`. On an Xcode before 16, `legacy` holds the tests and the
    /// attachments the legacy commands gave (the folder then has no test list or manifest of the host's).
    static func read(
        _ local: URL, logTests: [TestCaseResult], measuresCoverage: Bool, projectDirectory: URL,
        legacy: LegacyBundleEvidence.Listing? = nil
    ) -> BundleEvidence {
        var evidence = BundleEvidence()
        if let legacy {
            evidence.tests = legacy.tests
            evidence.notes += legacy.notes
        } else if let data = evidence.document(
            local.appendingPathComponent(FileName.tests), what: "the bundle's test list")
        {
            do {
                evidence.tests = try XcresultTestResults.decode(data).testCases
            } catch {
                evidence.notes.append("the bundle's test list could not be read: \(error)")
            }
        }
        if measuresCoverage {
            let url = local.appendingPathComponent(FileName.coverage)
            if let data = evidence.document(url, what: "the coverage report") {
                do {
                    evidence.coverage = try XccovReport.decode(data)
                    if let record = try? Self.record(.coverage, url, projectDirectory) {
                        evidence.artifacts.append(record)
                    }
                } catch {
                    evidence.notes.append("the coverage report could not be read: \(error)")
                }
            }
        }
        let merged = TestResultMerge.merge(log: logTests, bundle: evidence.tests)
        let folder = local.appendingPathComponent(FileName.attachments)
        if let legacy {
            evidence.readAttachments(
                folder, entries: legacy.attachments, tests: merged, projectDirectory: projectDirectory)
        } else {
            evidence.readAttachments(folder, tests: merged, projectDirectory: projectDirectory)
        }
        return evidence
    }

    /// A regular file's bytes, when it is one (never a link) and within `maximumDocumentBytes`.
    private mutating func document(_ url: URL, what: String) -> Data? {
        guard let size = Self.regularFileSize(url) else { return nil }
        guard size <= Self.maximumDocumentBytes else {
            notes.append(
                "\(what) was not read: \(size) bytes, over the limit of \(Self.maximumDocumentBytes) bytes")
            return nil
        }
        guard size > 0 else { return nil }
        return try? Data(contentsOf: url)
    }

    private mutating func readAttachments(_ folder: URL, tests: [TestCaseResult], projectDirectory: URL) {
        let manifestURL = folder.appendingPathComponent(FileName.manifest)
        guard let data = document(manifestURL, what: "the attachments manifest") else { return }
        let manifest: XcresultAttachmentManifest
        do {
            manifest = try XcresultAttachmentManifest.decode(data)
        } catch {
            notes.append("the attachments were not read: \(error)")
            return
        }
        let entries = manifest.tests.flatMap { test in test.attachments.map { (test.testIdentifier, $0) } }
        readAttachments(folder, entries: entries, tests: tests, projectDirectory: projectDirectory)
    }

    /// Keeps the listed files of `folder` that pass the limits, as attachment artifacts tied to their tests.
    private mutating func readAttachments(
        _ folder: URL, entries listed: [(test: String, attachment: XcresultAttachmentManifest.Attachment)],
        tests: [TestCaseResult], projectDirectory: URL
    ) {
        let identifiers = tests.map(\.identifier)
        let entries = listed.map { (test: Self.runIdentifier($0.test, among: identifiers), attachment: $0.attachment) }
        // Those tied to a failure are what an engineer looks at first; keep them when the count is cut.
        let ordered =
            entries.filter { $0.attachment.isAssociatedWithFailure == true }
            + entries.filter { $0.attachment.isAssociatedWithFailure != true }
        var refusedNames = 0
        var tooBig = 0
        var seen: Set<String> = []
        for entry in ordered {
            let fileName = entry.attachment.exportedFileName
            guard XcresultAttachmentManifest.isPlainFileName(fileName), fileName != FileName.manifest,
                !seen.contains(fileName)
            else {
                refusedNames += 1
                continue
            }
            seen.insert(fileName)
            let url = folder.appendingPathComponent(fileName)
            guard let size = Self.regularFileSize(url) else {
                refusedNames += 1
                continue
            }
            guard size <= Self.maximumAttachmentBytes else {
                tooBig += 1
                try? FileManager.default.removeItem(at: url)
                continue
            }
            guard artifacts.filter({ $0.kind == .attachment }).count < Self.maximumAttachments else {
                try? FileManager.default.removeItem(at: url)
                continue
            }
            guard var record = try? Self.record(.attachment, url, projectDirectory) else { continue }
            let prefix = (try? FileHandle(forReadingFrom: url)).map { handle in
                defer { try? handle.close() }
                return (try? handle.read(upToCount: 8)) ?? Data()
            }
            record.attachment = AttachmentFacts(
                testIdentifier: entry.test,
                name: ControlSequences.strip(entry.attachment.suggestedHumanReadableName ?? fileName),
                claimedType: AttachmentContent.claimedType(fileName: fileName),
                detectedType: AttachmentContent.detectedImageType(prefix ?? Data()),
                associatedWithFailure: entry.attachment.isAssociatedWithFailure ?? false)
            artifacts.append(record)
        }
        let listed = entries.count - refusedNames
        let kept = artifacts.filter { $0.kind == .attachment }.count
        if listed - tooBig > kept {
            notes.append(
                "\(listed - tooBig - kept) of \(listed) attachments left out: at most \(Self.maximumAttachments) "
                    + "are kept, those tied to a failure first")
        }
        if tooBig > 0 {
            notes.append(
                "\(tooBig) attachments left out: each may hold at most \(Self.maximumAttachmentBytes >> 20) MB")
        }
        if refusedNames > 0 {
            notes.append(
                "\(refusedNames) attachments of the manifest were refused: a name that is not a plain file name, "
                    + "listed twice, or not a regular file in the exported folder")
        }
    }

    /// The manifest names tests `Target/Class/method()`; the run names them `Class/method()`.
    static func runIdentifier(_ manifestIdentifier: String, among identifiers: [String]) -> String {
        let clean = ControlSequences.strip(manifestIdentifier)
        if identifiers.contains(clean) { return clean }
        var parts = clean.split(separator: "/", omittingEmptySubsequences: false)
        while parts.count > 1 {
            parts.removeFirst()
            let suffix = parts.joined(separator: "/")
            if identifiers.contains(suffix) { return suffix }
        }
        return clean
    }

    /// The size of a regular file at `url` (a link, folder or anything else: `nil`).
    static func regularFileSize(_ url: URL) -> Int64? {
        var status = stat()
        guard lstat(url.path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(status.st_size)
    }

    static func record(_ kind: ArtifactRecord.Kind, _ url: URL, _ projectDirectory: URL) throws -> ArtifactRecord {
        ArtifactRecord(
            kind: kind, path: relativePath(url, to: projectDirectory), bytes: regularFileSize(url),
            sha256: try SHA256Digest.hex(ofFile: url))
    }
}
