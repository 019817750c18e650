import Foundation

/// `manifest.json`, which `xcrun xcresulttool export attachments --path X --output-path D` (Xcode 16 and later)
/// writes into `D`: per test, the files it exported and how each relates to the test.
///
/// The host writes it, so every name in it is untrusted: `exportedFileName` is checked to be one plain file name
/// (no `/`, no `..`, no control characters) before anything opens it, and `suggestedHumanReadableName` is only
/// ever shown, escaped. Optional keys differ across Xcode versions; unknown keys are ignored.
public struct XcresultAttachmentManifest: Equatable, Sendable {
    public var tests: [Test]

    /// One test's attachments.
    public struct Test: Equatable, Sendable, Decodable {
        /// `Target/Class/method()`, the form `--test-id` takes.
        public var testIdentifier: String
        public var attachments: [Attachment]
    }

    /// One exported file.
    public struct Attachment: Equatable, Sendable, Decodable {
        /// The file's name inside the output folder.
        public var exportedFileName: String
        /// `<attachment name>_<index>_<UUID>.<ext>`: for people, never a path.
        public var suggestedHumanReadableName: String?
        public var isAssociatedWithFailure: Bool?
        /// Seconds since 1970.
        public var timestamp: Double?
        public var configurationName: String?
        public var deviceName: String?
        public var deviceId: String?
        public var repetitionNumber: Int?

        public init(
            exportedFileName: String, suggestedHumanReadableName: String? = nil, isAssociatedWithFailure: Bool? = nil,
            timestamp: Double? = nil
        ) {
            self.exportedFileName = exportedFileName
            self.suggestedHumanReadableName = suggestedHumanReadableName
            self.isAssociatedWithFailure = isAssociatedWithFailure
            self.timestamp = timestamp
        }
    }

    public init(tests: [Test]) {
        self.tests = tests
    }

    /// Decodes the file's bytes (a JSON array of tests).
    ///
    /// - Throws: `AttachmentManifestError` when it is not that array.
    public static func decode(_ data: Data) throws -> XcresultAttachmentManifest {
        guard (try? JSONSerialization.jsonObject(with: data, options: [])) is [Any] else {
            throw AttachmentManifestError.notAnArray(firstLine: ToolOutput.firstLine(data))
        }
        do {
            return XcresultAttachmentManifest(tests: try JSONDecoder().decode([Test].self, from: data))
        } catch {
            let failure = DecodingFailure.describe(error)
            throw AttachmentManifestError.invalid(path: failure.path, detail: failure.detail)
        }
    }

    /// Whether `name` is one plain file name in the output folder: not empty, not `.` or `..`, no `/` or `\`, no
    /// control characters, at most 255 bytes.
    public static func isPlainFileName(_ name: String) -> Bool {
        guard !name.isEmpty, name != ".", name != "..", name.utf8.count <= 255 else { return false }
        return !name.unicodeScalars.contains { $0 == "/" || $0 == "\\" || $0.value < 0x20 || $0.value == 0x7F }
    }
}
