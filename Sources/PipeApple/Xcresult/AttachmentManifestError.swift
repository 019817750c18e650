/// A `manifest.json` from `xcresulttool export attachments` that Pipe cannot read.
public enum AttachmentManifestError: Error, Equatable, CustomStringConvertible, Sendable {
    case notAnArray(firstLine: String)
    case invalid(path: String, detail: String)

    public var description: String {
        switch self {
        case .notAnArray(let firstLine):
            return
                "the attachments manifest written by `xcrun xcresulttool export attachments` is not a JSON array; it "
                + "begins '\(firstLine)'; check the host's Xcode (16 or later exports attachments this way)"
        case .invalid(let path, let detail):
            return "the attachments manifest is not in the expected format at \(path): \(detail)"
        }
    }
}
