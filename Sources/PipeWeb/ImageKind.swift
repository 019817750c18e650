/// What a file's first bytes say it is. A host's file name or claimed type is never believed: only bytes that are
/// PNG or JPEG are shown inline on a page; everything else is a download.
public enum ImageKind: String, Sendable, Equatable {
    case png
    case jpeg

    /// The kind of image `bytes` begin with, or `nil` when they are neither PNG nor JPEG.
    public static func sniff(_ bytes: some Collection<UInt8>) -> ImageKind? {
        let head = Array(bytes.prefix(8))
        if head == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] { return .png }
        if head.count >= 3, head[0] == 0xFF, head[1] == 0xD8, head[2] == 0xFF { return .jpeg }
        return nil
    }

    public var mediaType: String {
        switch self {
        case .png: return "image/png"
        case .jpeg: return "image/jpeg"
        }
    }
}
